import HTTPTypes
import HallmarkCore
import HallmarkCrypto
import Hummingbird
import NIOCore

/// The verifier page (`GET /verify`, DESIGN BM-PROVENANCE): a journalist drops a photo and the
/// browser checks the log's answer itself, with the keys of the edge's trust policy
/// (`HALLMARK_EDGE_TRUST_POLICY_FILE`), which the page shows and serves at `/verify/trust.json`.
/// Public and read-only; a strict Content-Security-Policy allows only the page's own script,
/// style and requests.
package struct VerifierPage: Sendable {
    /// The trust policy's keys as the page reads them.
    let trust: [UInt8]

    /// The page for `policy` (nil: the page says this edge names no key).
    package init(policy: TransparencyPolicy?) {
        trust = Self.trust(policy)
    }

    /// `{logs: [vkey], witnesses: [{name, vkey}], groups: [{name, threshold, members}],
    /// quorum}`: a group's `all` as its member count, `any` as 1.
    static func trust(_ policy: TransparencyPolicy?) -> [UInt8] {
        let p = policy ?? TransparencyPolicy()
        let object: [String: JSONValue] = [
            "logs": .array(p.logs.map { .string($0.description) }),
            "witnesses": .array(
                p.witnesses.map { .object(["name": .string($0.name), "vkey": .string($0.key.description)]) }),
            "groups": .array(
                p.groups.map {
                    .object([
                        "name": .string($0.name), "threshold": .number(String($0.threshold)),
                        "members": .array($0.members.map(JSONValue.string)),
                    ])
                }),
            "quorum": p.quorum.map(JSONValue.string) ?? .null,
        ]
        return JSONWriter.write(.object(object))
    }

    /// Adds the page's routes.
    func register(on router: Router<EdgeRequestContext>) {
        let files: [(String, String, [UInt8])] = [
            ("verify", "text/html; charset=utf-8", Array(VerifierAssets.html.utf8)),
            ("verify/verify.js", "text/javascript; charset=utf-8", Array(VerifierAssets.script.utf8)),
            ("verify/verify.css", "text/css; charset=utf-8", Array(VerifierAssets.style.utf8)),
            ("verify/trust.json", "application/json", trust),
        ]
        for (path, type, bytes) in files {
            let body = ByteBuffer(bytes: bytes)
            router.get(RouterPath(path)) { _, _ -> Response in
                Response(status: .ok, headers: Self.headers(type), body: .init(byteBuffer: body))
            }
        }
    }

    /// The security headers of every `/verify` response.
    static func headers(_ contentType: String) -> HTTPFields { PageHeaders.of(contentType) }
}
