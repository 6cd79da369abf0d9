import AuthorityCore
import Foundation
import Testing

/// KEK file parsing: versions, the index key, and errors that never echo a key.
@Suite(.timeLimit(.minutes(5)))
struct AuthoritySecretsTests {
    static let k1 = String(repeating: "11", count: 32)
    static let k2 = String(repeating: "22", count: 32)
    static let ix = String(repeating: "33", count: 32)

    @Test func highestVersionIsCurrentUnlessNamed() throws {
        let s = try AuthoritySecrets.parse("# comment\nkek.1=\(Self.k1)\nkek.2=\(Self.k2)\nindex=\(Self.ix)\n", source: "t")
        #expect(s.keyring.currentVersion == 2)
        #expect(s.keyring.keys.count == 2)
        let pinned = try AuthoritySecrets.parse("kek.1=\(Self.k1),kek.2=\(Self.k2),index=\(Self.ix),current=1", source: "t")
        #expect(pinned.keyring.currentVersion == 1)
        #expect(s.nucIndex(Data(repeating: 1, count: 32)) == pinned.nucIndex(Data(repeating: 1, count: 32)))
        #expect(s.nucIndex(Data(repeating: 1, count: 32)) != s.nucIndex(Data(repeating: 2, count: 32)))
    }

    @Test func refusesBrokenFilesWithoutEchoingKeys() throws {
        let broken = [
            "kek.1=\(Self.k1)", "index=\(Self.ix)", "kek.1=abcd,index=\(Self.ix)",
            "kek.1=\(Self.k1),index=\(Self.ix),current=3", "kek.x=\(Self.k1),index=\(Self.ix)",
            "secret=\(Self.k1),kek.1=\(Self.k1),index=\(Self.ix)",
        ]
        for text in broken {
            #expect(throws: AuthorityError.self) { try AuthoritySecrets.parse(text, source: "t") }
            do { _ = try AuthoritySecrets.parse(text, source: "t") } catch {
                #expect(!error.description.contains("1111"), "an error echoed key material")
            }
        }
        #expect(throws: AuthorityError.self) { try AuthoritySecrets.fromEnvironment([:]) }
        let generated = try AuthoritySecrets.parse(AuthoritySecrets.generateText(), source: "generated")
        #expect(generated.keyring.currentVersion == 1)
    }
}
