import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import Testing

/// A submission's Kafka key is the hex SHA-256 of `hallmark-capture-v1`, its token's nonce and
/// its ciphertext, whichever layout carries the token; a certificate bundle's, of its
/// certificate as sent and its decimal timestamp.
@Suite(.timeLimit(.minutes(1)))
struct SubmissionCaptureKeyTests {
    static func expected(_ token: BirthmarkToken) throws -> [UInt8] {
        let parts = try token.sealedParts()
        var joined = Data("hallmark-capture-v1".utf8)
        joined.append(parts.nonce)
        joined.append(parts.ciphertext)
        return Array(Hex.encode(SHA256Hash.digest(joined)).utf8)
    }

    @Test(arguments: SubmissionJSONValueTests.bodies.filter { $0.shape != .certificateBundle })
    func theKeyHashesTheTokensNonceAndCiphertext(_ body: Submission) throws {
        let token = try #require(body.token)
        let key = try #require(body.captureKey)
        #expect(key == (try Self.expected(token)))
        #expect(key.count == 64)
    }

    @Test func twoTokensTwoKeysAndNoTokenNoKey() throws {
        let keys = SubmissionJSONValueTests.bodies.filter { $0.shape != .certificateBundle }.compactMap(\.captureKey)
        // The mobile token appears twice (Hallmark's body and the flat bundle), the camera token twice.
        #expect(Set(keys).count == 2)
        var tokenless = SubmissionJSONValueTests.bodies[0]
        tokenless.encryptedNucToken = nil
        #expect(tokenless.captureKey == nil)
    }

    @Test func aCertificateBundleIsKeyedByItsCertificateAndTime() throws {
        let bundle = try #require(SubmissionJSONValueTests.bodies.first { $0.shape == .certificateBundle })
        let cert = try #require(bundle.cameraCert)
        let expected = Hex.encode(SHA256Hash.digest(Data("hallmark-capture-v1\(cert)\(bundle.timestamp)".utf8)))
        #expect(bundle.captureKey == Array(expected.utf8))
        var later = bundle
        later.timestamp += 1
        #expect(later.captureKey != bundle.captureKey)
    }
}
