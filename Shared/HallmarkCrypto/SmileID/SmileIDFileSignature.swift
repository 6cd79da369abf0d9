import Foundation

/// SIGN-FILES: the MAC of a zip upload's files (DESIGN §1). Files are sorted by name in
/// byte order; image files (`si_selfie`, `si_liveness`, `si_document_front`,
/// `si_document_back` in the name) contribute `b64(bytes)`, all others their raw bytes;
/// the concatenation is signed with SIGN-1 and no headers.
public enum SmileIDFileSignature {
    /// One file of the upload.
    public struct File: Sendable, Hashable {
        /// File name inside the zip.
        public var name: String
        /// File contents.
        public var contents: Data

        /// Creates a file.
        public init(name: String, contents: Data) {
            self.name = name
            self.contents = contents
        }
    }

    /// Name fragments whose files are signed as base64.
    public static let base64Markers = ["si_selfie", "si_liveness", "si_document_front", "si_document_back"]

    /// The signed bytes for a file set. `security_info.json` itself should not be passed.
    public static func signingData(files: [File]) -> Data {
        let sorted = files.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        var data = Data()
        for file in sorted {
            if base64Markers.contains(where: { file.name.contains($0) }) {
                data.append(Data(Base64.encode(file.contents).utf8))
            } else {
                data.append(file.contents)
            }
        }
        return data
    }

    /// The MAC (base64) of a file set.
    public static func sign(secret: String, timestamp: String, files: [File]) throws(HallmarkCryptoError) -> String {
        try SmileIDSignature.sign(secret: secret, timestamp: timestamp, data: signingData(files: files))
    }

    /// Index of the secret version that reproduces `mac`, or nil.
    public static func verify(
        mac: String, secrets: [String], timestamp: String,
        files: [File]
    ) throws(HallmarkCryptoError) -> Int? {
        let expected = try Base64.decode(mac, length: 32)
        return try SmileIDSignature.match(
            expected, secrets: secrets, timestamp: timestamp,
            data: signingData(files: files))
    }

    /// Verifies a file set against its `security_info.json` bytes.
    public static func verify(securityInfo: Data, secrets: [String], files: [File]) throws(HallmarkCryptoError) -> Int? {
        let info = try SmileIDSecurityInfo.parse(securityInfo)
        return try verify(mac: info.mac, secrets: secrets, timestamp: info.timestamp, files: files)
    }
}
