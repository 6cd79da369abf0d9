import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkSmileID

/// Which requests the gateway encrypts (ENC-1's policy per deployment). It is read from a JSON
/// file (`HALLMARK_GATEWAY_POLICY_FILE`), each field overridable by a variable:
///
/// | file field | variable | default | meaning |
/// |---|---|---|---|
/// | `encryption` | `HALLMARK_GATEWAY_ENCRYPTION` | `true` | encrypt at all |
/// | `excluded_paths` | `HALLMARK_GATEWAY_EXCLUDED_PATHS` (comma-separated) | none | ``PathPattern`` globs of paths sent as they are |
/// | `honour_skip_header` | `HALLMARK_GATEWAY_HONOUR_SKIP_HEADER` | `true` | a `SmileID-Skip-Encryption` header lets a request through |
/// | `multipart_metadata` | `HALLMARK_GATEWAY_MULTIPART_METADATA` | `true` | encrypt multipart `partner_params` / `metadata` |
/// | `s3_uploads` | `HALLMARK_GATEWAY_S3_UPLOADS` | `false` | encrypt uploads whose `Host` is S3 |
/// | `s3_hosts` | `HALLMARK_GATEWAY_S3_HOSTS` | `s3.amazonaws.com`, `*.s3.amazonaws.com`, `s3.*.amazonaws.com`, `*.s3.*.amazonaws.com` | what counts as an S3 host |
///
/// The file may hold only these fields (a misspelt one is refused, not ignored).
package struct EncryptionPolicy: Sendable, Hashable {
    package var encryption = true
    package var excludedPaths: [PathPattern] = []
    package var honourSkipHeader = true
    package var multipartMetadata = true
    package var s3Uploads = false
    /// Host globs (`*` is any run of characters within one label).
    package var s3Hosts = ["s3.amazonaws.com", "*.s3.amazonaws.com", "s3.*.amazonaws.com", "*.s3.*.amazonaws.com"]

    /// The header that opts one request out.
    package static let skipHeader = "SmileID-Skip-Encryption"

    package init() {}

    /// What to do with one request, before its body is looked at: nil means encrypt it (as its
    /// `Content-Type` says), otherwise why it passes through.
    package func passthrough(path: String?, headers: [String: String]) -> EncryptResult.PassthroughReason? {
        guard encryption else { return .encryptionDisabled }
        if let path, excludedPaths.contains(where: { $0.matches(path) }) { return .excludedPath }
        if honourSkipHeader, let skip = HeaderMap.value(Self.skipHeader, in: headers),
            skip.trimmingCharacters(in: .whitespaces).lowercased() != "false"
        {
            return .skipHeader
        }
        if !s3Uploads, let host = HeaderMap.value("Host", in: headers), isS3(host: host) { return .s3Upload }
        return nil
    }

    /// Whether `host` (a `Host` header, port removed, any case) is an S3 endpoint.
    package func isS3(host: String) -> Bool {
        let name = host.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return s3Hosts.contains { pattern in
            // A host glob is a path glob over "/"-joined labels: `*` stays inside one label.
            PathPattern("/" + pattern.lowercased().replacingOccurrences(of: ".", with: "/"))?
                .matches("/" + name.replacingOccurrences(of: ".", with: "/")) ?? false
        }
    }
}

extension EncryptionPolicy {
    /// The policy from `HALLMARK_GATEWAY_POLICY_FILE` (when set) with the variables over it.
    /// The variables, each declared once (`hallmark config` lists them); each set one
    /// overrides the policy file's field, and the defaults are the policy's.
    package enum Variable {
        package static let file = Setting.optionalText(
            "HALLMARK_GATEWAY_POLICY_FILE", doc: "a JSON encryption policy; the variables below override its fields")
        package static let encryption = Setting.flag(
            "HALLMARK_GATEWAY_ENCRYPTION", default: EncryptionPolicy().encryption, doc: "encrypt at all")
        package static let excludedPaths = Setting.list(
            "HALLMARK_GATEWAY_EXCLUDED_PATHS", default: [], accepted: "path globs starting with /, separated by commas",
            doc: "paths sent as they are", accepts: { PathPattern($0) != nil })
        package static let honourSkipHeader = Setting.flag(
            "HALLMARK_GATEWAY_HONOUR_SKIP_HEADER", default: EncryptionPolicy().honourSkipHeader,
            doc: "a `SmileID-Skip-Encryption` header lets a request through")
        package static let multipartMetadata = Setting.flag(
            "HALLMARK_GATEWAY_MULTIPART_METADATA", default: EncryptionPolicy().multipartMetadata,
            doc: "encrypt multipart `partner_params` and `metadata`")
        package static let s3Uploads = Setting.flag(
            "HALLMARK_GATEWAY_S3_UPLOADS", default: EncryptionPolicy().s3Uploads, doc: "encrypt uploads whose `Host` is S3")
        package static let s3Hosts = Setting.list(
            "HALLMARK_GATEWAY_S3_HOSTS", default: EncryptionPolicy().s3Hosts, accepted: "host globs separated by commas",
            doc: "what counts as an S3 host")

        package static var all: [SettingDescription] {
            [
                file.description, encryption.description, excludedPaths.description, honourSkipHeader.description,
                multipartMetadata.description, s3Uploads.description, s3Hosts.description,
            ]
        }
    }

    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> EncryptionPolicy {
        let settings = Settings(env)
        var policy = EncryptionPolicy()
        if let path = try settings.value(Variable.file) {
            policy = try fromFile(path)
        }
        policy.encryption = try settings.valueIfSet(Variable.encryption) ?? policy.encryption
        if let paths = try settings.valueIfSet(Variable.excludedPaths) {
            policy.excludedPaths = try patterns(paths, variable: Variable.excludedPaths.name)
        }
        policy.honourSkipHeader = try settings.valueIfSet(Variable.honourSkipHeader) ?? policy.honourSkipHeader
        policy.multipartMetadata = try settings.valueIfSet(Variable.multipartMetadata) ?? policy.multipartMetadata
        policy.s3Uploads = try settings.valueIfSet(Variable.s3Uploads) ?? policy.s3Uploads
        policy.s3Hosts = try settings.valueIfSet(Variable.s3Hosts) ?? policy.s3Hosts
        return policy
    }

    /// Reads a policy file (JSON object; see the table above).
    package static func fromFile(_ path: String) throws(ConfigurationError) -> EncryptionPolicy {
        let variable = Variable.file.name
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: variable, reason: "cannot read \(path)")
        }
        guard let object = (try? JSONReader.parse(Array(data)))?.object else {
            throw ConfigurationError(variable: variable, reason: "\(path) is not a JSON object")
        }
        var policy = EncryptionPolicy()
        for (name, value) in object {
            func flag() throws(ConfigurationError) -> Bool {
                guard case .bool(let b) = value else {
                    throw ConfigurationError(variable: variable, reason: "\(name) must be true or false")
                }
                return b
            }
            func strings() throws(ConfigurationError) -> [String] {
                guard let items = value.array?.compactMap(\.string), items.count == value.array?.count else {
                    throw ConfigurationError(variable: variable, reason: "\(name) must be an array of strings")
                }
                return items
            }
            switch name {
            case "encryption": policy.encryption = try flag()
            case "excluded_paths": policy.excludedPaths = try patterns(try strings(), variable: variable)
            case "honour_skip_header": policy.honourSkipHeader = try flag()
            case "multipart_metadata": policy.multipartMetadata = try flag()
            case "s3_uploads": policy.s3Uploads = try flag()
            case "s3_hosts": policy.s3Hosts = try strings()
            default: throw ConfigurationError(variable: variable, reason: "unknown field \(name)")
            }
        }
        return policy
    }

    static func patterns(_ items: [String], variable: String) throws(ConfigurationError) -> [PathPattern] {
        var out: [PathPattern] = []
        for item in items {
            guard let pattern = PathPattern(item) else {
                throw ConfigurationError(variable: variable, reason: "excluded paths must start with /")
            }
            out.append(pattern)
        }
        return out
    }
}
