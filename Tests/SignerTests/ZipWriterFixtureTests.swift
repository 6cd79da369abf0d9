import Foundation
import HallmarkSmileID
import HallmarkZip
import HallmarkTestSupport
import Testing

/// Vector D's files zipped by writers other than this repository's (Java, Python, Info-ZIP),
/// captured once as bytes: the reader's notion of the format is checked against theirs.
@Suite("Zip writers", .timeLimit(.minutes(1)))
struct ZipWriterFixtureTests {
    static let archives = ZipFixtures.archives

    @Test(arguments: archives.indices)
    func vectorDFromAnotherWriterReads(_ index: Int) throws {
        let (writer, base64) = Self.archives[index]
        let body = try #require(Data(base64Encoded: base64))
        let upload = try #require(try ZipUpload.read(body, limits: ZipCheck.limits), "\(writer)")
        #expect(String(decoding: upload.signingData, as: UTF8.self) == #"{"a":1}TElW/9j/4EpQRUdEQVRB"#, "\(writer)")
        #expect(upload.securityInfo == ZipCheck.info, "\(writer)")
    }
}
