import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension LogVerifier {
    /// A verify request refused before the verifier saw it but whose id reads is answered
    /// `rejected` / `malformed` (DESIGN §2): the verifier is read-only, and its result names no
    /// other reason of the runtime's.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let query = message.fields["query"]?.string.flatMap(LogVerifyRequest.Query.init(rawValue:)) ?? .inclusion
        metrics.verification(LogVerifyResult.Status.rejected.rawValue)
        let result = LogVerifyResult.rejected(query: query, reason: .malformed)
        return [try message.reply(result, or: configuration.verifyOutput)]
    }
}
