import Foundation
import HallmarkCrypto
import ZIPFoundation

/// A SmileID zip upload read with ZIPFoundation: its files and its `security_info.json`.
public struct ZipUpload: Sendable {
    public static let securityInfoName = "security_info.json"

    public let files: [SmileIDFileSignature.File]
    public let securityInfo: Data

    /// Whether `body` starts like a zip archive (local file header signature).
    public static func looksLikeZip(_ body: Data) -> Bool {
        body.count >= 4 && body.prefix(4).elementsEqual([0x50, 0x4B, 0x03, 0x04])
    }

    /// The upload's files, or nil when it has no `security_info.json` (then it is signed as a
    /// plain body). Throws when the archive is unreadable or larger than `maxBytes` unpacked.
    public static func read(_ body: Data, maxBytes: Int) throws -> ZipUpload? {
        let archive = try Archive(data: body, accessMode: .read)
        var files: [SmileIDFileSignature.File] = []
        var info: Data?
        var total = 0
        for entry in archive where entry.type == .file {
            total += Int(clamping: entry.uncompressedSize)
            guard total <= maxBytes else { throw SmileIDError(.zip, "the unpacked files exceed \(maxBytes) bytes") }
            var contents = Data()
            _ = try archive.extract(entry) { contents.append($0) }
            // Signing uses the file's name without folders, as the SDKs zip them flat.
            let name = (entry.path as NSString).lastPathComponent
            if name == securityInfoName { info = contents } else { files.append(.init(name: name, contents: contents)) }
        }
        guard let info else { return nil }
        return ZipUpload(files: files, securityInfo: info)
    }

}
