import Foundation
import Testing

/// Keeps every test finite: each type holding `@Test`s is a `@Suite` with a `.timeLimit`
/// (which covers its tests and nested suites), and each `@Test` outside a type has one of its
/// own. A stuck `for await` then fails its test rather than holding CI for an hour and a half.
///
/// Reads the sources under `Tests/`, which this repository writes with top-level declarations
/// at column 0 and members indented: a `@Test` the scan cannot place in a type fails too.
@Suite("Every suite has a time limit", .timeLimit(.minutes(1)))
struct SuiteTimeLimitTests {
    static let testsRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// What one source file declares.
    struct Scan {
        /// `@Suite` attribute text by the type it is attached to.
        var suites: [String: String] = [:]
        /// Types (by name, extensions included) that hold a `@Test`, with where.
        var holders: [String: String] = [:]
        /// Problems found directly: free tests without a limit, tests outside any known type.
        var problems: [String] = []
    }

    static let typeDeclaration = try! NSRegularExpression(
        pattern:
            #"^(?:@\w+(?:\(.*\))?\s+)*(?:(?:public|internal|fileprivate|private|final|open)\s+)*(?:struct|class|enum|actor|extension)\s+([A-Za-z_][A-Za-z0-9_]*)"#
    )

    static func scan(_ text: String, file: String) -> Scan {
        var scan = Scan()
        var pending = ""  // column-0 attribute text waiting for its declaration
        var currentType: String?
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let atColumn0 = !(line.first?.isWhitespace ?? true)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let place = "\(file):\(number + 1)"
            if atColumn0 || !pending.isEmpty {
                let range = NSRange(line.startIndex..., in: line)
                if atColumn0, let match = typeDeclaration.firstMatch(in: line, range: range),
                    let nameRange = Range(match.range(at: 1), in: line)
                {
                    let name = String(line[nameRange])
                    currentType = name
                    let attributes = pending + line
                    if attributes.contains("@Suite") { scan.suites[name] = attributes }
                    pending = ""
                    continue
                }
                if atColumn0, line.hasPrefix("@") || !pending.isEmpty {
                    pending += line + "\n"
                    if trimmed.contains("func ") {
                        if pending.contains("@Test"), !pending.contains(".timeLimit(") {
                            scan.problems.append("\(place): a @Test outside any suite has no .timeLimit")
                        }
                        pending = ""
                        currentType = nil
                    }
                    continue
                }
                if !pending.isEmpty {  // an attribute's indented continuation
                    pending += line + "\n"
                    continue
                }
                if trimmed == "}" { continue }  // the type's end; a later member cannot follow it
                currentType = nil
            }
            if trimmed.hasPrefix("@Test") {
                guard let type = currentType else {
                    scan.problems.append("\(place): a @Test the scan cannot place in a type")
                    continue
                }
                if scan.holders[type] == nil { scan.holders[type] = place }
            }
        }
        return scan
    }

    @Test func everySuiteHasATimeLimit() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.testsRoot, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 50, "the scan found only \(files.count) files under \(Self.testsRoot.path)")
        var suites: [String: String] = [:], holders: [String: String] = [:], problems: [String] = []
        for url in files {
            // Types are named within their test target (three targets have an OversizedInputTests).
            let relative = url.path.dropFirst(Self.testsRoot.path.count).drop { $0 == "/" }
            let target = relative.prefix { $0 != "/" }
            let scan = Self.scan(try String(contentsOf: url, encoding: .utf8), file: String(relative))
            suites.merge(scan.suites.map { ("\(target)/\($0.key)", $0.value) }) { $0 + $1 }
            holders.merge(scan.holders.map { ("\(target)/\($0.key)", $0.value) }) { first, _ in first }
            problems += scan.problems
        }
        #expect(holders.count > 40, "the scan found tests in only \(holders.count) types")
        for (type, place) in holders.sorted(by: { $0.key < $1.key }) {
            guard let suite = suites[type] else {
                problems.append("\(place): \(type) holds tests but is no @Suite (so it has no .timeLimit)")
                continue
            }
            if !suite.contains(".timeLimit(") { problems.append("\(place): @Suite \(type) has no .timeLimit") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The scan itself: it finds what is missing in each way a file can miss it.
    @Test func theScanCatchesMissingLimits() {
        let source = """
            @Suite("limited", .serialized,
                   .timeLimit(.minutes(2)))
            struct Limited {
                @Test func a() {}
            }
            extension Limited {
                @Test(arguments: [1, 2])
                func b(_ n: Int) {}
            }
            @Suite struct Unlimited {
                @Test func c() {}
            }
            struct Implicit {
                @Test func d() {}
            }
            @Test(.timeLimit(.minutes(1)), arguments: [
                1,
            ])
            func freeLimited(_ n: Int) {}
            @Test func freeUnlimited() {}
            """
        let scan = Self.scan(source, file: "f")
        #expect(scan.suites.keys.sorted() == ["Limited", "Unlimited"])
        #expect(scan.suites["Limited"]?.contains(".timeLimit(") == true)
        #expect(scan.holders.keys.sorted() == ["Implicit", "Limited", "Unlimited"])
        #expect(scan.problems == ["f:20: a @Test outside any suite has no .timeLimit"])
    }
}
