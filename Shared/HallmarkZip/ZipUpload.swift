import Foundation
import HallmarkCrypto

/// A SmileID zip upload (DESIGN §1 SIGN-FILES): the bytes its MAC covers and its
/// `security_info.json`, read from a ``ZipArchive``.
///
/// What the SDKs send: a flat archive (no folders) of `info.json`, the images
/// (`si_selfie_*.jpg`, `si_liveness_*.jpg`, `si_document_*.jpg`) and `security_info.json`,
/// stored or deflated, sometimes with data descriptors (streaming writers). SIGN-FILES signs
/// each file under its name without folders, so a name with folders is accepted and signed
/// under its last component, and two files whose last components are equal are refused (the
/// MAC could not tell them apart); `security_info.json` must appear exactly once and is at
/// most ``maxSecurityInfoBytes``. Folder entries carry nothing and are not signed.
///
/// The signed bytes are built while inflating, in signing order, into one buffer sized to
/// the ``Plan/reservation`` (image files as base64, streamed), so the files are never held
/// twice and the buffer never grows past what was reserved.
public struct ZipUpload: Sendable {
    public static let securityInfoName = "security_info.json"
    /// `{"mac": …, "timestamp": …}` is under 100 bytes; anything much larger is not one.
    public static let maxSecurityInfoBytes = 4096

    /// SIGN-FILES' data: the files sorted by name, image files as base64.
    public let signingData: Data
    /// The `security_info.json` bytes.
    public let securityInfo: Data
    /// The signed files' names, in signing order.
    public let fileNames: [String]

    /// Whether `body` starts like a zip archive (local file header signature). Such a body is
    /// read as an archive: if that fails, the request is malformed.
    public static func looksLikeZip(_ body: Data) -> Bool {
        body.count >= 4 && body.prefix(4).elementsEqual([0x50, 0x4B, 0x03, 0x04])
    }

    /// What reading an upload will inflate, in order, and the memory it will hold.
    public struct Plan: Sendable {
        public let archive: ZipArchive
        /// Signed files in signing order (byte order of their names without folders).
        let files: [ZipEntry]
        let securityInfo: ZipEntry
        let folders: [ZipEntry]
        /// Bytes of the signing buffer: the declared sizes, image files as base64.
        let signedBytes: Int
        /// What the read holds at most: the signing buffer and `security_info.json`. Inflating
        /// past a declared size is refused, so this bound holds whatever the input does.
        public let reservation: Int
    }

    /// The plan for `archive`, or nil when it has no `security_info.json` (then the body is
    /// a plain SIGN-1 payload and nothing is inflated).
    public static func plan(_ archive: ZipArchive) throws -> Plan? {
        let files = archive.entries.filter { !$0.isDirectory }
        let infos = files.filter { $0.fileName == securityInfoName }
        guard let info = infos.first else { return nil }
        guard infos.count == 1 else { throw ZipError(.invalid, "\(securityInfoName) appears more than once") }
        guard info.declaredSize <= maxSecurityInfoBytes else {
            throw ZipError(.invalid, "\(securityInfoName) declares more than \(maxSecurityInfoBytes) bytes")
        }
        guard Set(files.map(\.fileName)).count == files.count else {
            throw ZipError(.invalid, "two files have the same name once folders are dropped")
        }
        let signed = files.filter { $0.fileName != securityInfoName }
            .sorted { Array($0.fileName.utf8).lexicographicallyPrecedes(Array($1.fileName.utf8)) }
        var signedBytes = 0
        for file in signed {
            let size = isBase64(file.fileName) ? base64Length(file.declaredSize) : file.declaredSize
            guard let size else { throw ZipError(.invalid, "the signed size overflows") }
            signedBytes = try ZipBytes.add(signedBytes, size, "the signed size")
        }
        return Plan(
            archive: archive, files: signed, securityInfo: info,
            folders: archive.entries.filter(\.isDirectory), signedBytes: signedBytes,
            reservation: try ZipBytes.add(signedBytes, info.declaredSize, "the reservation"))
    }

    /// Inflates `plan`'s entries (blocking CPU work: run it on a ``ZipWorkerPool``). Throws
    /// ``ZipError`` `.invalid` at the first broken rule; never holds more than the reservation.
    public static func read(_ plan: Plan) throws -> ZipUpload {
        let archive = plan.archive
        let cap = archive.limits.maxInflatedBytes
        var inflated = 0
        func count(_ n: Int) throws {
            inflated = try ZipBytes.add(inflated, n, "the inflated size")
            guard inflated <= cap else { throw ZipError(.invalid, "the files inflate past the \(cap)-byte cap") }
        }
        for folder in plan.folders { try archive.contents(of: folder) { try count($0.count) } }
        var signing = Data(capacity: plan.signedBytes)
        for file in plan.files {
            if isBase64(file.fileName) {
                var encoder = Base64Stream()
                try archive.contents(of: file) { chunk in
                    try count(chunk.count)
                    encoder.append(chunk, to: &signing)
                }
                encoder.finish(into: &signing)
            } else {
                try archive.contents(of: file) { chunk in
                    try count(chunk.count)
                    signing.append(chunk.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        var info = Data(capacity: plan.securityInfo.declaredSize)
        try archive.contents(of: plan.securityInfo) { chunk in
            try count(chunk.count)
            info.append(chunk.assumingMemoryBound(to: UInt8.self))
        }
        // Each entry produced exactly its declared size, so this holds; checked all the same.
        guard signing.count == plan.signedBytes else { throw ZipError(.invalid, "the signed size changed while reading") }
        return ZipUpload(signingData: signing, securityInfo: info, fileNames: plan.files.map(\.fileName))
    }

    /// Parses and reads `body` on the calling thread, with no memory budget (tools, tests).
    /// Nil when the archive has no `security_info.json`.
    public static func read(_ body: Data, limits: ZipLimits) throws -> ZipUpload? {
        guard let plan = try plan(ZipArchive(body, limits: limits)) else { return nil }
        return try read(plan)
    }

    /// Whether SIGN-FILES signs this file as base64 (the same rule as ``SmileIDFileSignature``).
    static func isBase64(_ name: String) -> Bool {
        SmileIDFileSignature.base64Markers.contains { name.contains($0) }
    }

    /// The base64 length of `n` bytes, or nil on overflow.
    static func base64Length(_ n: Int) -> Int? {
        let (groups, overflow) = (n / 3 + (n % 3 == 0 ? 0 : 1)).multipliedReportingOverflow(by: 4)
        return overflow ? nil : groups
    }
}

/// Base64 of a byte stream that arrives in chunks: whole 3-byte groups are encoded as they
/// come, the 0–2 bytes left over wait for the next chunk or the end.
struct Base64Stream {
    private var carry: [UInt8] = []

    mutating func append(_ chunk: UnsafeRawBufferPointer, to output: inout Data) {
        var start = 0
        if !carry.isEmpty {
            while carry.count < 3, start < chunk.count {
                carry.append(chunk[start])
                start += 1
            }
            guard carry.count == 3 else { return }
            output.append(Data(carry).base64EncodedData())
            carry.removeAll()
        }
        let whole = (chunk.count - start) / 3 * 3
        if whole > 0 {
            output.append(Data(UnsafeRawBufferPointer(rebasing: chunk[start..<(start + whole)])).base64EncodedData())
        }
        carry.append(contentsOf: chunk[(start + whole)...])
    }

    mutating func finish(into output: inout Data) {
        if !carry.isEmpty { output.append(Data(carry).base64EncodedData()) }
        carry = []
    }
}
