import Foundation
import Testing

@testable import HallmarkCrypto

/// C2SP signed-note, tlog-checkpoint, tlog-cosignature, tlog-proof and tlog-tiles, against
/// the specs' own examples and Go's golang.org/x/mod/sumdb/note test vectors.
@Suite("Signed notes and C2SP log formats", .timeLimit(.minutes(1)))
struct SignedNoteTests {
    /// x/mod/sumdb/note's note_test.go: the key, its private half and the signed text.
    static let peterVKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    static let peterSeed = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"  // 0x01 ‖ seed
    static let peterText = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
    static let peterLine =
        "\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"

    @Test func theSpecExampleVerifies() throws {
        // C2SP signed-note, "Example".
        let vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
        let key = try NoteVerifierKey(parsing: vkey)
        #expect(key.description == vkey && key.name == "example.com/foo" && key.keyID == 0x530d_903a)
        let note = try SignedNote.parse(
            Array(
                ("This is an example message.\n\n\u{2014} example.com/foo "
                    + "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n").utf8))
        #expect(note.text == "This is an example message.\n")
        #expect(try note.verified(by: [key]).map(\.key) == [key])
        var tampered = note
        tampered.text = "This is an exemplary message.\n"
        #expect(throws: HallmarkCryptoError.self) { try tampered.verified(by: [key]) }
    }

    @Test func signingMatchesGosNotePackage() throws {
        let material = try Base64.decode(Self.peterSeed)
        #expect(material.first == 0x01)
        let signer = try NoteSigner(name: "PeterNeumann", seed: material.dropFirst(), algorithm: .ed25519)
        #expect(signer.verifierKey.description == Self.peterVKey)
        let note = SignedNote(text: Self.peterText, signatures: [try signer.sign(Self.peterText)])
        #expect(note.formatted == Self.peterText + "\n" + Self.peterLine)
        #expect(try SignedNote.parse(Array(note.formatted.utf8)) == note)
    }

    @Test func unknownKeysAreIgnoredAndAKnownBadSignatureRejects() throws {
        let peter = try NoteVerifierKey(parsing: Self.peterVKey)
        let other = try NoteSigner(name: "other.example/k", seed: Data(repeating: 7, count: 32), algorithm: .ed25519)
        var note = try SignedNote.parse(Array((Self.peterText + "\n" + Self.peterLine).utf8))
        note.signatures.insert(try other.sign(Self.peterText), at: 0)
        // Same name, other id: an unknown key, ignored.
        note.signatures.append(.init(name: "PeterNeumann", keyID: 0xc74f_20a4, bytes: Data(repeating: 1, count: 64)))
        #expect(try note.verified(by: [peter]).map(\.key) == [peter])
        #expect(try note.verified(by: [peter, other.verifierKey]).count == 2)
        // A known key whose signature fails rejects the whole note.
        note.signatures.append(.init(name: "PeterNeumann", keyID: 0xc74f_20a3, bytes: Data(repeating: 1, count: 64)))
        #expect(throws: HallmarkCryptoError.self) { try note.verified(by: [peter]) }
        // No known key at all.
        #expect(throws: HallmarkCryptoError.self) { try note.verified(by: [other.verifierKey.for(.cosignatureV1)]) }
    }

    @Test func aVKeyWhoseKeyHasAPlusParses() throws {
        // Base64 uses '+': a vkey splits at its first two only.
        var seed = Data(repeating: 0, count: 32)
        var key: NoteVerifierKey
        repeat {
            seed[0] &+= 1
            key = try NoteSigner(name: "witness.example/w1", seed: seed, algorithm: .cosignatureV1).verifierKey
        } while !key.description.split(separator: "+", maxSplits: 2)[2].contains("+")
        #expect(try NoteVerifierKey(parsing: key.description) == key)
    }

    @Test func malformedNotesAndKeysAreRefused() throws {
        for bad in [
            "no blank line\n\u{2014} PeterNeumann x08go/ZJku\n",
            Self.peterText + "\n",  // no signatures
            Self.peterText + "\n" + Self.peterLine.dropLast(),  // no final newline
            Self.peterText + "\n- PeterNeumann x08go/ZJkuBS9UG/Sffcv=\n",  // not an em dash
            Self.peterText + "\n\u{2014} Peter Neumann x08go/ZJkuBS9UG/Sffcv=\n",
            "bell\u{07}\n\n" + Self.peterLine,
        ] {
            #expect(throws: HallmarkCryptoError.self, "\(bad)") { try SignedNote.parse(Array(bad.utf8)) }
        }
        for bad in [
            "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  // wrong id
            "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",  // wrong length
            "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  // unknown algorithm
            "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  // upper-case hex
            "Peter+Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        ] {
            #expect(throws: HallmarkCryptoError.self, "\(bad)") { try NoteVerifierKey(parsing: bad) }
        }
    }

    @Test func aCosignatureSignsTheTimeAndTheCheckpoint() throws {
        // C2SP tlog-cosignature, "Ed25519 signed message", built here from the spec's text.
        let text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        let seed = Data(repeating: 0x42, count: 32)
        let witness = try NoteSigner(name: "witness.example.com/w1", seed: seed, algorithm: .cosignatureV1)
        let signature = try witness.sign(text, time: 1_679_315_147)
        #expect(signature.bytes.count == 72)
        #expect(signature.bytes.prefix(8) == Data([0, 0, 0, 0, 0x64, 0x18, 0x50, 0xcb]))
        let message = Data("cosignature/v1\ntime 1679315147\n".utf8) + Data(text.utf8)
        let publicKey = try Ed25519.keyPair(seed: seed).publicKey
        #expect(Ed25519.verify(signature: signature.bytes.dropFirst(8), message: message, publicKey: publicKey))
        // The key ID commits to type 0x04.
        var idInput = Data("witness.example.com/w1\n".utf8)
        idInput.append(0x04)
        idInput.append(publicKey)
        #expect(signature.keyID == SHA256Hash.digest(idInput).prefix(4).reduce(0) { $0 << 8 | UInt32($1) })
        let note = SignedNote(text: text, signatures: [signature])
        #expect(try note.verified(by: [witness.verifierKey]).first?.time == 1_679_315_147)
        // The same key as a plain Ed25519 key is another key: nothing known signed.
        #expect(throws: HallmarkCryptoError.self) { try note.verified(by: [witness.verifierKey.for(.ed25519)]) }
    }

    @Test func checkpointTextIsStrict() throws {
        let text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        let checkpoint = try CheckpointText(parsing: text)
        #expect(checkpoint.origin == "example.com/behind-the-sofa" && checkpoint.treeSize == 20_852_163)
        #expect(checkpoint.text == text)
        #expect(try CheckpointText(parsing: text + "ext one\n").extensions == ["ext one"])
        for bad in [
            "o\n020\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", "o\n20\nCsUY\n", "o\n20\n",
            "\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
            "o\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n",
        ] {
            #expect(throws: HallmarkCryptoError.self, "\(bad)") { try CheckpointText(parsing: bad) }
        }
    }

    @Test func aCheckpointOpensOnlyWithItsLogsOwnSignature() throws {
        let seed = Data(repeating: 7, count: 32)
        let log = try NoteSigner(name: "example.com/log", seed: seed, algorithm: .ed25519)
        let clock = try NoteSigner(name: "example.com/log", seed: seed, algorithm: .cosignatureV1)
        let text = try CheckpointText(origin: "example.com/log", treeSize: 5, rootHash: Data(repeating: 3, count: 32))
        let both = SignedNote(text: text.text, signatures: [try log.sign(text.text), try clock.sign(text.text, time: 1)])
        #expect(try CheckpointText.open(both, vkey: log.verifierKey) == text)
        func code(_ note: SignedNote, _ vkey: NoteVerifierKey) -> HallmarkCryptoError.Code? {
            do {
                _ = try CheckpointText.open(note, vkey: vkey)
                return nil
            } catch { return error.code }
        }
        // The time cosignature alone is the same key, but not the log's signature.
        #expect(
            code(SignedNote(text: text.text, signatures: [try clock.sign(text.text, time: 1)]), log.verifierKey)
                == .authenticationFailed)
        // Signed by the key, under a name that is not the checkpoint's origin.
        let renamed = try NoteSigner(name: "example.com/other", seed: seed, algorithm: .ed25519)
        #expect(
            code(SignedNote(text: text.text, signatures: [try renamed.sign(text.text)]), renamed.verifierKey)
                == .authenticationFailed)
        // Another key with the log's name.
        let stranger = try NoteSigner(name: "example.com/log", seed: Data(repeating: 8, count: 32), algorithm: .ed25519)
        #expect(code(both, stranger.verifierKey) == .authenticationFailed)
        // A signed note that is not a checkpoint.
        let prose = SignedNote(text: "hello\n", signatures: [try log.sign("hello\n")])
        #expect(code(prose, log.verifierKey) == .malformedNote)
    }

    @Test func aProofFileRoundTrips() throws {
        let signer = try NoteSigner(name: "example.com/fancylog", seed: Data(repeating: 9, count: 32), algorithm: .ed25519)
        let text = try CheckpointText(origin: "example.com/fancylog", treeSize: 109_482, rootHash: Data(repeating: 1, count: 32))
            .text
        let proof = TransparencyProof(
            extra: Data("age-v1.2.1".utf8), index: 73894, inclusionProof: (0..<5).map { Data(repeating: UInt8($0), count: 32) },
            checkpoint: SignedNote(text: text, signatures: [try signer.sign(text)]))
        let formatted = proof.formatted
        #expect(formatted.hasPrefix("c2sp.org/tlog-proof@v1\nextra YWdlLXYxLjIuMQ==\nindex 73894\nAAAA"))
        #expect(formatted.contains("=\n\nexample.com/fancylog\n109482\n"))
        #expect(try TransparencyProof.parse(Array(formatted.utf8)) == proof)
        var bare = proof
        bare.extra = nil
        bare.inclusionProof = []
        bare.index = 0
        #expect(try TransparencyProof.parse(Array(bare.formatted.utf8)) == bare)
        for bad in [
            formatted.replacingOccurrences(of: "tlog-proof@v1", with: "tlog-proof@v2"),
            formatted.replacingOccurrences(of: "index 73894", with: "index 073894"),
            formatted.replacingOccurrences(of: "index 73894\n", with: ""),
            formatted.replacingOccurrences(of: "\n\nexample.com", with: "\nexample.com"),
        ] {
            #expect(throws: HallmarkCryptoError.self) { try TransparencyProof.parse(Array(bad.utf8)) }
        }
    }

    @Test func tilePathsFollowTheSpec() throws {
        #expect(TileCoordinate(level: 0, index: 1_234_067).description == "tile/0/x001/x234/067")
        #expect(TileCoordinate(level: 2, index: 5, width: 17).description == "tile/2/005.p/17")
        #expect(TileCoordinate(level: nil, index: 1000).description == "tile/entries/x001/000")
        for tile in [
            TileCoordinate(level: 0, index: 1_234_067), TileCoordinate(level: 63, index: 0, width: 1),
            TileCoordinate(level: nil, index: 999_999_999, width: 255),
        ] {
            #expect(TileCoordinate(path: tile.description) == tile)
        }
        for bad in [
            "tile/0/1234", "tile/0/x1/234", "tile/64/000", "tile/0/000.p/256", "tile/0/000.p/0", "tile/0/00a", "tiles/0/000",
        ] {
            #expect(TileCoordinate(path: bad) == nil, "\(bad)")
        }
        // The spec's example: 70,000 leaves are 273 full level-0 tiles and one of width 112,
        // one full level-1 tile and one of width 17, and a level-2 tile of width 1.
        let tiles = TileCoordinate.tiles(treeSize: 70_000)
        #expect(tiles.filter { $0.level == 0 && $0.isFull }.count == 273)
        #expect(tiles.filter { $0.level == 0 && !$0.isFull }.map(\.width) == [112])
        #expect(tiles.filter { $0.level == 1 }.map(\.width) == [256, 17])
        #expect(tiles.filter { $0.level == 2 }.map(\.width) == [1])
        #expect(tiles.filter { $0.level == nil }.count == 274)
        #expect(TileCoordinate.tiles(treeSize: 256).map(\.description) == ["tile/0/000", "tile/entries/000", "tile/1/000.p/1"])
    }

    @Test func aGrowingTreeAddsOnlyTheTilesItDidNotHave() {
        for (old, new) in [(0, 70_000), (69_000, 70_000), (65_535, 65_536), (65_536, 65_537), (700, 700), (255, 256), (3, 4)] {
            let before = Set(TileCoordinate.tiles(treeSize: UInt64(old))), after = TileCoordinate.tiles(treeSize: UInt64(new))
            let added = TileCoordinate.tiles(treeSize: UInt64(new), since: UInt64(old))
            #expect(added == after.filter { !before.contains($0) }, "\(old) → \(new)")
        }
        #expect(TileCoordinate.tiles(treeSize: 700, since: 700).isEmpty)
        #expect(TileCoordinate.tiles(treeSize: 513, since: 512).map(\.description) == ["tile/0/002.p/1", "tile/entries/002.p/1"])
    }
}
