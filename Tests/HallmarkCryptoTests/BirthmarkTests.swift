import Foundation
import HallmarkCore
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct BirthmarkTests {
    static let masters: [Int: Data] = [
        3: Data(repeating: 3, count: 32), 17: Data(repeating: 17, count: 32),
        2499: Data(repeating: 99, count: 32),
    ]
    static let nuc = Data((0..<32).map { UInt8($0 * 7 & 0xff) })
    static let device = BirthmarkDeviceRecord(assignedTables: [3, 17, 2499])

    static func lookup(_ record: BirthmarkDeviceRecord?) -> (Data) -> BirthmarkDeviceRecord? {
        { $0 == nuc ? record : nil }
    }

    @Test func referenceTokenOutcomes() throws {
        let token = try BirthmarkCameraToken.seal(nucHash: Self.nuc, master: Self.masters[17]!, tableId: 17, keyIndex: 999)
        let parsed = try BirthmarkToken.parse(JSONCoding.encode(token))
        #expect(parsed == .reference(token))
        #expect(
            try BirthmarkToken.parse(Data(#"{"camera_token":"#.utf8) + JSONCoding.encode(token) + Data("}".utf8))
                == .reference(token))
        #expect(BirthmarkTokenValidator.validate(parsed, masterKeys: Self.masters, device: Self.lookup(Self.device)) == .pass)
        #expect(
            BirthmarkTokenValidator.validate(
                parsed, masterKeys: [3: Self.masters[3]!],
                device: Self.lookup(Self.device)) == .fail(.unknownTable))
        #expect(
            BirthmarkTokenValidator.validate(parsed, masterKeys: Self.masters, device: Self.lookup(nil))
                == .fail(.unknownDevice))
        #expect(
            BirthmarkTokenValidator.validate(
                parsed, masterKeys: Self.masters,
                device: Self.lookup(BirthmarkDeviceRecord(assignedTables: [1, 2, 3])))
                == .fail(.tableNotAssigned))
        #expect(
            BirthmarkTokenValidator.validate(
                parsed, masterKeys: Self.masters,
                device: Self.lookup(BirthmarkDeviceRecord(assignedTables: [17], blacklisted: true)))
                == .fail(.blacklisted))
        // Any flipped byte of ciphertext, tag or nonce fails authentication.
        for field in [\BirthmarkCameraToken.ciphertext, \.authTag, \.nonce] {
            let bytes = try Hex.decode(token[keyPath: field])
            for i in 0..<bytes.count {
                var bad = token
                bad[keyPath: field] = Hex.encode(flipped(bytes, at: i))
                #expect(
                    BirthmarkTokenValidator.validate(
                        .reference(bad), masterKeys: Self.masters,
                        device: Self.lookup(Self.device)) == .fail(.authenticationFailed))
            }
        }
        var otherIndex = token
        otherIndex.keyIndex = 998
        #expect(BirthmarkTokenValidator.open(.reference(otherIndex), masterKeys: Self.masters) == .failure(.authenticationFailed))
        for mutate in [
            { (t: inout BirthmarkCameraToken) in t.keyIndex = 1000 }, { $0.keyIndex = -1 }, { $0.tableId = -3 },
            { $0.nonce = "00" }, { $0.authTag = "zz" + $0.authTag.dropFirst(2) }, { $0.ciphertext += "00" },
        ] {
            var bad = token
            mutate(&bad)
            #expect(BirthmarkTokenValidator.open(.reference(bad), masterKeys: Self.masters) == .failure(.malformed))
        }
    }

    @Test func mobileTokenOutcomes() throws {
        for used in 0..<3 {
            let tables = [3, 17, 2499], indices = [0, 500, 999]
            let token = try BirthmarkMobileToken.seal(
                nucHash: Self.nuc, master: Self.masters[tables[used]]!,
                tableReferences: tables, keyIndices: indices, used: used)
            let parsed = try BirthmarkToken.parse(JSONCoding.encode(token))
            #expect(parsed == .mobile(token))
            let opened = try BirthmarkTokenValidator.open(parsed, masterKeys: Self.masters).get()
            #expect(opened.nucHash == Self.nuc && opened.tableId == tables[used] && opened.keyIndex == indices[used])
            #expect(BirthmarkTokenValidator.validate(parsed, masterKeys: Self.masters, device: Self.lookup(Self.device)) == .pass)
            #expect(
                BirthmarkTokenValidator.validate(parsed, masterKeys: [:], device: Self.lookup(Self.device))
                    == .fail(.unknownTable))
            let sealed = try Base64.decode(token.encryptedNucToken)
            for i in 0..<sealed.count {
                var bad = token
                bad.encryptedNucToken = Base64.encode(flipped(sealed, at: i))
                #expect(BirthmarkTokenValidator.open(.mobile(bad), masterKeys: Self.masters) == .failure(.authenticationFailed))
            }
        }
        let good = try BirthmarkMobileToken.seal(
            nucHash: Self.nuc, master: Self.masters[3]!, tableReferences: [3, 17, 2499],
            keyIndices: [1, 2, 3], used: 0)
        var twoPairs = good
        twoPairs.keyIndices = [1, 2]
        #expect(BirthmarkTokenValidator.open(.mobile(twoPairs), masterKeys: Self.masters) == .failure(.malformed))
        var badB64 = good
        badB64.encryptedNucToken = "@@@@"
        #expect(BirthmarkTokenValidator.open(.mobile(badB64), masterKeys: Self.masters) == .failure(.malformed))
    }

    @Test func tokenParsingErrors() {
        for bad in ["", "{}", #"{"ciphertext":"00"}"#, #"{"encrypted_nuc_token":"x","table_references":[1]}"#, "[1,2]"] {
            expectCode(.malformedJSON) { _ = try BirthmarkToken.parse(Data(bad.utf8)) }
        }
        expectCode(.invalidKey) { _ = try BirthmarkKeys.derive(master: Data(count: 31), keyIndex: 1) }
        expectCode(.invalidArgument) { _ = try BirthmarkKeys.derive(master: Data(count: 32), keyIndex: 1000) }
    }

    @Test func provisioningRoundTripAndTamper() throws {
        let camera = try X25519.generate()
        let answer = ProvisioningAnswer(deviceSerial: "CAM-0001", masterKeys: Self.masters)
        #expect(answer.tableAssignments == [3, 17, 2499])
        let sealed = try ProvisioningSeal.seal(answer, cameraPublicKey: camera.publicKey)
        let opened = try ProvisioningSeal.open(sealed, cameraPrivateKey: camera.privateKey)
        #expect(opened == answer)
        #expect(try opened.decodedMasterKeys() == Self.masters)
        let bytes = try Base64.decode(sealed)
        for i in 0..<bytes.count {
            #expect(throws: HallmarkCryptoError.self) {
                _ = try ProvisioningSeal.open(Base64.encode(flipped(bytes, at: i)), cameraPrivateKey: camera.privateKey)
            }
        }
        let stranger = try X25519.generate()
        expectCode(.authenticationFailed) { _ = try ProvisioningSeal.open(sealed, cameraPrivateKey: stranger.privateKey) }
        expectCode(.invalidLength) {
            _ = try ProvisioningSeal.open(Base64.encode(Data(count: 40)), cameraPrivateKey: camera.privateKey)
        }
        expectCode(.weakSharedSecret) { _ = try ProvisioningSeal.seal(answer, cameraPublicKey: Data(count: 32)) }
    }

    @Test func provisioningIsDeterministicGivenEphemeralAndNonce() throws {
        let camera = try X25519.keyPair(privateKey: Data(repeating: 1, count: 32))
        let answer = ProvisioningAnswer(deviceSerial: "S", tableAssignments: [1], masterKeys: ["1": Hex.encode(Data(count: 32))])
        let a = try ProvisioningSeal.seal(
            answer, cameraPublicKey: camera.publicKey,
            ephemeralPrivateKey: Data(repeating: 2, count: 32), nonce: Data(count: 12))
        let b = try ProvisioningSeal.seal(
            answer, cameraPublicKey: camera.publicKey,
            ephemeralPrivateKey: Data(repeating: 2, count: 32), nonce: Data(count: 12))
        #expect(a == b)
        let bytes = try Base64.decode(a)
        #expect(bytes.prefix(32) == (try X25519.keyPair(privateKey: Data(repeating: 2, count: 32)).publicKey))
        #expect(bytes.dropFirst(32).prefix(12) == Data(count: 12))
    }
}

@Suite(.timeLimit(.minutes(2))) struct BirthmarkProvisioningHelperTests {
    @Test func assignmentsAreDistinctAndInRange() throws {
        var seen = Set<Int>()
        for _ in 0..<200 {
            let tables = try BirthmarkKeys.randomTableAssignment(tableCount: 10)
            #expect(tables.count == 3 && Set(tables).count == 3 && tables.allSatisfy { (0..<10).contains($0) })
            seen.formUnion(tables)
            #expect(BirthmarkKeys.keyIndices.contains(try BirthmarkKeys.randomKeyIndex()))
        }
        #expect(seen.count == 10)
        #expect(try BirthmarkKeys.randomTableAssignment(tableCount: 3) == [0, 1, 2])
        expectCode(.invalidArgument) { _ = try BirthmarkKeys.randomTableAssignment(tableCount: 2) }
        expectCode(.invalidArgument) { _ = try SecureRandom.uniform(below: 0) }
        #expect(try BirthmarkKeys.newMasterKey().count == 32)
    }
}
