import Foundation
import HallmarkMessages
import Testing

/// A rejected result's Swift reasons are exactly its schema's `reason` enum: a code added to
/// one and not the other would be answered `malformed`, or refused by consumers.
@Suite("Rejected forms' reasons", .timeLimit(.minutes(1)))
struct RejectionReasonTests {
    static func schemaReasons(_ name: String) throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto-json/\(name).json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let properties = schema?["properties"] as? [String: Any]
        return Set((properties?["reason"] as? [String: Any])?["enum"] as? [String] ?? [])
    }

    @Test func signReasonsAreTheSchemas() throws {
        let swift = Set(SignResult.RejectionReason.allCases.map(\.rawValue))
        #expect(swift == (try Self.schemaReasons(SignResult.schemaName)))
    }

    @Test func encryptReasonsAreTheSchemas() throws {
        let swift = Set(EncryptResult.RejectionReason.allCases.map(\.rawValue))
        #expect(swift == (try Self.schemaReasons(EncryptResult.schemaName)))
    }

    @Test func anUnlistedCodeIsMalformed() {
        #expect(SignResult.RejectionReason(code: "bad_mac") == .malformed)
        #expect(EncryptResult.RejectionReason(code: "malformed_multipart") == .malformedMultipart)
        #expect(SignResult.RejectionReason(code: RequestCarrier.upstreamRejected) == .upstreamRejected)
    }
}
