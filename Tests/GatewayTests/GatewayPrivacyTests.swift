import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// Privacy requests about an E2EE session against the running gateway, through `hallmark
/// privacy`: the export shows the session (times, counters) and never its key; the erasure
/// deletes the row and the sealed key with it, so the session's next message is
/// `unknown_session`; both are in the audit trail, which verifies.
@Suite("Gateway privacy requests", .serialized, .timeLimit(.minutes(6)))
struct GatewayPrivacyTests {
    @Test func exportThenEraseASession() async throws {
        let h = try await GatewayHarness()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-privacy-\(h.id)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let privacy = try await h.privacy(in: folder)
        let (env, keyFile) = (privacy.topics, privacy.keyFile)
        let gateway = try await h.startGateway("privacy", privacy.gateway)
        defer { gateway.signal(SIGKILL) }

        var client = try InvisoClient()
        let other = try InvisoClient()
        let request = client.handshake()
        try await h.send(h.topic("handshake.in"), key: client.sessionID, message: request)
        try client.complete(try await h.answer(E2EEHandshakeResult.self, to: request.id, on: h.topic("handshake.out")))
        let first = try client.inbound("hello", counter: 0)
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: first)
        #expect(try await h.answer(E2EEPlaintext.self, to: first.id, on: h.topic("plaintext.out")).status == .decrypted)

        func cli(_ action: String) async throws -> (code: Int32?, result: Message<PrivacyResult>?, text: String) {
            let run = try ServiceProcess(
                "hallmark",
                arguments: [
                    "privacy", action, "--session", client.sessionID,
                    "--operator-key", keyFile, "--timeout", "60",
                ],
                name: "\(h.id)-\(action)", environment: env)
            let code = await run.waitForExit(timeout: .seconds(90))
            let text = run.rawLog
            guard let start = text.firstIndex(of: "{"),
                let document = try? JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any],
                (document["answered"] as? [String]) == ["gateway"],
                let first = (document["results"] as? [Any])?.first,
                let bytes = try? JSONSerialization.data(withJSONObject: first)
            else { return (code, nil, text) }
            return (code, try? JSONCoding.decode(Message<PrivacyResult>.self, from: [UInt8](bytes)), text)
        }
        let export = try await cli("export")
        #expect(export.code == 0, "\(export.text)")
        let row = export.result?.records?.first { $0.source == "gateway_\(h.id).e2ee_sessions" }
        #expect(row?.fields["session_id"] == .string(client.sessionID) && row?.fields["last_inbound_counter"] == .integer(0))
        #expect(!export.text.contains("sealed") && !export.text.contains(other.sessionID))
        let sessionKey = try #require(client.session?.sessionKey)
        #expect(!export.text.contains(Base64.encode(sessionKey)) && !export.text.contains(Hex.encode(sessionKey)))

        let erase = try await cli("erase")
        #expect(erase.code == 0, "\(erase.text)")
        #expect(erase.result?.erased == [.init(source: "gateway_\(h.id).e2ee_sessions", count: 1)])
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: h.logger)
        defer { pool.close() }
        let left = try await pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: "gateway_\(h.id)").e2ee_sessions WHERE session_id = \(client.sessionID)
            """)[0].column(0, as: Int64.self)
        #expect(left == 0)
        let next = try client.inbound("after", counter: 1)
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: next)
        let answer = try await h.answer(E2EEPlaintext.self, to: next.id, on: h.topic("plaintext.out"))
        #expect(answer.status == .rejected && answer.reason == .unknownSession)
        let check = try await AuditChainCheck.run(schema: "gateway_\(h.id)", pool: pool)
        #expect(check.problem == nil && check.records == 6, "the secret version and KEK in force at start, export, erase")
        await h.close()
    }
}
