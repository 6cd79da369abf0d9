import Foundation
import GatewayCore
import HallmarkCore
import HallmarkMessages
import Testing

/// The policy's parts alone: path globs, S3 hosts, the decision order, and the policy file.
@Suite("Gateway policy", .timeLimit(.minutes(1)))
struct GatewayPolicyTests {
    @Test(arguments: [
        ("/v1/legacy/*", "/v1/legacy/jobs", true),
        ("/v1/legacy/*", "/v1/legacy/jobs/1", false),
        ("/v1/legacy/**", "/v1/legacy/jobs/1", true),
        ("/v1/*/upload", "/v1/abc/upload", true),
        ("/v1/*/upload", "/v1/a/b/upload", false),
        ("/v1/**/upload", "/v1/a/b/upload", true),
        ("/v1/job?", "/v1/jobs", true),
        ("/v1/job?", "/v1/job/", false),
        ("/v1/jobs", "/v1/jobs?x=1", true),
        ("/v1/jobs", "/v1/jobs2", false),
        ("/**", "/", true),
        ("/*a*b*c", "/xaybzc", true),
        ("/*a*b*c", "/xaybz", false),
    ])
    func pathGlobs(pattern: String, path: String, matches: Bool) throws {
        #expect(try #require(PathPattern(pattern)).matches(path) == matches)
    }

    @Test func aHostilePatternIsFast() throws {
        let pattern = try #require(PathPattern("/" + String(repeating: "*a", count: 200) + "b"))
        // Quadratic at worst (2000 × 400 steps); exponential backtracking would outlast the
        // suite's time limit.
        #expect(!pattern.matches("/" + String(repeating: "a", count: 2000)))
        #expect(PathPattern("no-slash") == nil)
    }

    @Test func decisionsComeInPolicyOrder() {
        var policy = EncryptionPolicy()
        policy.excludedPaths = [PathPattern("/v1/public/*")!]
        #expect(policy.passthrough(path: "/v1/jobs", headers: [:]) == nil)
        #expect(policy.passthrough(path: "/v1/public/ping", headers: [:]) == .excludedPath)
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["smileid-skip-encryption": "true"]) == .skipHeader)
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["SmileID-Skip-Encryption": "false"]) == nil)
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["Host": "bucket.s3.eu-west-1.amazonaws.com:443"]) == .s3Upload)
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["Host": "s3.amazonaws.com.evil.example"]) == nil)
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["Host": "api.smileidentity.com"]) == nil)
        policy.honourSkipHeader = false
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["SmileID-Skip-Encryption": "true"]) == nil)
        policy.s3Uploads = true
        #expect(policy.passthrough(path: "/v1/jobs", headers: ["Host": "s3.amazonaws.com"]) == nil)
        policy.encryption = false
        #expect(policy.passthrough(path: "/v1/jobs", headers: [:]) == .encryptionDisabled)
    }

    @Test func policyFileAndVariables() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"{"encryption": true, "excluded_paths": ["/v1/legacy/**"], "multipart_metadata": false, "s3_uploads": true}"#.utf8
        )
        .write(to: file)
        let policy = try EncryptionPolicy.fromEnvironment([
            "HALLMARK_GATEWAY_POLICY_FILE": file.path,
            "HALLMARK_GATEWAY_S3_UPLOADS": "false",
        ])
        #expect(policy.excludedPaths.map(\.description) == ["/v1/legacy/**"])
        #expect(!policy.multipartMetadata && !policy.s3Uploads && policy.encryption && policy.honourSkipHeader)
        let off = try EncryptionPolicy.fromEnvironment([
            "HALLMARK_GATEWAY_POLICY_FILE": file.path,
            "HALLMARK_GATEWAY_ENCRYPTION": "off",
            "HALLMARK_GATEWAY_EXCLUDED_PATHS": "/a/*, /b",
        ])
        #expect(!off.encryption && off.excludedPaths.map(\.description) == ["/a/*", "/b"])

        try Data(#"{"encrypt": true}"#.utf8).write(to: file)
        let misspelt = #expect(throws: ConfigurationError.self) {
            try EncryptionPolicy.fromEnvironment(["HALLMARK_GATEWAY_POLICY_FILE": file.path])
        }
        #expect(misspelt?.reason.contains("unknown field encrypt") == true)
        try Data(#"{"excluded_paths": ["v1/no-slash"]}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError.self) {
            try EncryptionPolicy.fromEnvironment(["HALLMARK_GATEWAY_POLICY_FILE": file.path])
        }
        #expect(throws: ConfigurationError.self) {
            try EncryptionPolicy.fromEnvironment(["HALLMARK_GATEWAY_ENCRYPTION": "maybe"])
        }
        #expect(throws: ConfigurationError.self) {
            try EncryptionPolicy.fromEnvironment(["HALLMARK_GATEWAY_POLICY_FILE": "/nonexistent/policy.json"])
        }
    }

    @Test func contentTypesPickTheRequestType() {
        #expect(PayloadEncryptor.requestType(contentType: "application/json; charset=utf-8") == .json)
        #expect(PayloadEncryptor.requestType(contentType: "application/vnd.smile+json") == .json)
        #expect(PayloadEncryptor.requestType(contentType: "Application/ZIP") == .zip)
        #expect(PayloadEncryptor.requestType(contentType: "multipart/form-data; boundary=x") == .multipart)
        #expect(PayloadEncryptor.requestType(contentType: "text/plain") == nil)
        #expect(PayloadEncryptor.requestType(contentType: "") == nil)
    }
}
