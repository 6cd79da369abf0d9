import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import Testing

/// `Submission.jsonValue()`, the edge's hand-written tree, is the tree `JSONCoding` makes of
/// the same body, member for member, for every shape and every optional member.
@Suite(.timeLimit(.minutes(1)))
struct SubmissionJSONValueTests {
    static let hash = String(repeating: "ab", count: 32)
    static let mobile = BirthmarkMobileToken(
        encryptedNucToken: Base64.encode(Data(repeating: 7, count: 92)), tableReferences: [1, 2, 3], keyIndices: [4, 5, 999])
    static let camera = BirthmarkCameraToken(
        ciphertext: String(repeating: "cd", count: 32), authTag: String(repeating: "ef", count: 16),
        nonce: String(repeating: "01", count: 12), tableId: 2, keyIndex: 17)

    static let bodies: [Submission] = [
        Submission(
            imageHashes: [.init(imageHash: hash, modificationLevel: 0)], token: .mobile(mobile), timestamp: 1_760_000_000),
        Submission(
            imageHashes: [
                .init(imageHash: hash, modificationLevel: 0),
                .init(imageHash: String(repeating: "12", count: 32), modificationLevel: 2, parentImageHash: hash),
            ],
            token: .reference(camera), timestamp: 1, gpsHash: String(repeating: "34", count: 32),
            ownerHash: String(repeating: "56", count: 32)),
        Submission(
            cameraSubmission: [.init(imageHash: hash, modificationLevel: 1, parentImageHash: hash)], cameraToken: camera,
            manufacturerCert: .init(authorityID: "awkward \" \\ / é", validationEndpoint: "http://localhost:8001/validate"),
            timestamp: UInt64(Int64.max)),
        Submission(
            flatBundle: .init(imageHash: hash, modificationLevel: 0, parentImageHash: nil), packed: mobile,
            timestamp: 1_760_000_000, deviceSignature: "c2ln",
            ispValidation: .init(
                varianceMetric: 0.125, ispParameters: .init(whiteBalance: .init(redGain: 1.5, blueGain: nil), sharpening: 2),
                sampleCount: 3, shootingMode: "auto", metricVersion: "v1")),
        Submission(
            certificateBundle: hash, cameraCert: "MIIB+zCCAaGg\n/+==", bundleSignature: "MEUCIQ==", timestamp: 1_760_000_000,
            gpsHash: String(repeating: "34", count: 32)),
    ]

    @Test(arguments: bodies)
    func theHandWrittenTreeIsTheEncodersTree(_ body: Submission) throws {
        let expected = try JSONCoding.value(of: body)
        #expect(try body.jsonValue() == expected)
        #expect(JSONWriter.write(try body.jsonValue()) == (try JSONCoding.encode(body)))
    }
}
