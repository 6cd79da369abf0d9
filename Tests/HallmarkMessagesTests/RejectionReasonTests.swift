import Foundation
import HallmarkCrypto
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

    /// A token result's reasons are the validator's plus `replayed_token`, and its schema lists
    /// exactly those; a submission result can carry every one of them.
    @Test func validationReasonsAreTheValidatorsPlusReplayAndTheSchemas() throws {
        let names = ValidationReason.allCases.map(\.rawValue)
        #expect(names == BirthmarkTokenReason.allCases.map(\.rawValue) + ["replayed_token"])
        #expect(Set(names) == (try Self.schemaReasons(TokenResult.schemaName)))
        for reason in ValidationReason.allCases {
            #expect(ValidationReason(rawValue: reason.rawValue) == reason)
            #expect(SubmissionResult.Reason(reason).rawValue == reason.rawValue)
        }
        #expect(ValidationReason(rawValue: "image_hash") == nil)
    }

    @Test func submissionReasonsAreTheSchemas() throws {
        let swift = Set(SubmissionResult.Reason.allCases.map(\.rawValue))
        #expect(swift == (try Self.schemaReasons(SubmissionResult.schemaName)))
    }

    @Test func anUnlistedCodeIsMalformed() {
        #expect(SignResult.RejectionReason(code: "bad_mac") == .malformed)
        #expect(EncryptResult.RejectionReason(code: "malformed_multipart") == .malformedMultipart)
        #expect(SignResult.RejectionReason(code: RequestCarrier.upstreamRejected) == .upstreamRejected)
    }
}
