import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport

extension MessageTargets {
    /// The key tables' master keys the authority target opens tokens with: derived from the
    /// table id, so seeds sealed with them open and the fuzzer reaches past AES-GCM.
    static func master(_ table: Int) -> Data { Data(SHA256Hash.digest(Data("hallmark-fuzz-table-\(table)".utf8))) }

    static let operatorSeed = Data(SHA256Hash.digest(Data("hallmark-fuzz-operator".utf8)))
    static let adminVerifier: AdminCommandVerifier = {
        let keys = try! OperatorKeys(["ops-1": Ed25519.keyPair(seed: operatorSeed).publicKey])
        return AdminCommandVerifier(keys: keys, windowSeconds: 300)
    }()

    static func authority(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let (message, valid) = try FuzzIntake.read(bytes, topic: "authority", schemas: authoritySchemas), valid else {
            return
        }
        switch message.header.schema {
        case TokenRequest.schemaName:
            guard let (token, _) = TokenProcessor.token(in: message) else { return }
            let tables = token.referencedTables
            try require(tables.allSatisfy(BirthmarkKeys.tableIds.contains), "a schema-valid token names a table out of range")
            let masters = Dictionary(tables.map { ($0, master($0)) }, uniquingKeysWith: { a, _ in a })
            if case .success(let opened) = BirthmarkTokenValidator.open(token, masterKeys: masters) {
                try require(tables.contains(opened.tableId), "a token opened under a table it does not name")
            }
        case AdminCommand.schemaName:
            _ = try? adminVerifier.verify(message)
        default:
            _ = try? message.decode(ProvisionRequest.self)
        }
    }

    static func authoritySeeds() throws -> [[UInt8]] {
        let nuc = Data(SHA256Hash.digest(Data("nuc".utf8)))
        let reference = try BirthmarkCameraToken.seal(nucHash: nuc, master: master(12), tableId: 12, keyIndex: 42)
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master(9), tableReferences: [3, 9, 12],
            keyIndices: [42, 42, 7], used: 1)
        let packed = try MessageExamples.packed(reference, tables: [12, 3, 9])
        let tokens = [BirthmarkToken.reference(reference), .mobile(mobile), .mobile(packed)].map {
            Message(TokenRequest(token: $0), correlationID: "c-1", replyTo: "birthmark.token.results")
        }
        let command = try Message(AdminCommand(command: .blacklist, deviceSerial: "CAM-0001", reason: "reported stolen"))
            .signed(keyID: "ops-1", seed: operatorSeed)
        return try examples(authoritySchemas) + tokens.map { try JSONCoding.encode($0) } + [JSONCoding.encode(command)]
    }
}
