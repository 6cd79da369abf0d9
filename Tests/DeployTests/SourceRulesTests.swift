import Foundation
import Testing

/// Rules of the source tree that the compiler does not enforce.
@Suite("Source rules", .timeLimit(.minutes(1)))
struct SourceRulesTests {
    /// The C modules Package.swift declares.
    static let cModules: Set<String> = ["rdkafka", "libpq", "libcrypto", "zlib", "CHallmarkPBKDF2"]

    /// Every Swift file under Services/ and Shared/, with its text.
    static func sources() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for top in ["Services", "Shared"] {
            let base = DeployFiles.path(top)
            let walker = FileManager.default.enumerator(atPath: base)
            while let relative = walker?.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                files.append(("\(top)/\(relative)", try String(contentsOfFile: "\(base)/\(relative)", encoding: .utf8)))
            }
        }
        return files
    }

    @Test func onlyNativeFoldersImportCModules() throws {
        let sources = try Self.sources()
        #expect(sources.count > 300)
        let offenders = sources.filter { source in
            !source.path.contains("/Native/")
                && source.text.split(separator: "\n").contains { line in
                    line.hasPrefix("import ") && Self.cModules.contains(String(line.dropFirst("import ".count)))
                }
        }
        #expect(offenders.map(\.path) == [])
    }

    /// A closure held directly as a `Mutex`'s or `Locked`'s value (or an optional or a tuple of
    /// one) gains a reabstraction thunk pair at every `withLock`: each call then runs every call
    /// before it, until the stack overflows (the writer bell, ``WriterBellTests``). Hold it as a
    /// struct's field, in an array, or in a class.
    @Test func noLockHoldsABareClosure() throws {
        let declaration = try Regex(#"(Mutex|Locked)<\(*(@Sendable\s*)?\([^<>]*->"#)
        var offenders: [String] = []
        for source in try Self.sources() {
            for (number, line) in source.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(declaration) {
                offenders.append("\(source.path):\(number + 1)")
            }
        }
        #expect(offenders == [])
        // The pattern catches the bell as it was.
        #expect("private let wake = Mutex<(@Sendable () -> Void)?>(nil)".contains(declaration))
        #expect("let state = Mutex<(Int, (@Sendable () -> Void)?)>((0, nil))".contains(declaration))
        #expect(!"private let pending = Mutex<[@Sendable () -> Void]>([])".contains(declaration))
    }
}
