import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// Answers `hallmark.privacy.requests` for one service (DESIGN §2): a request signed by an
/// operator key, in its time window, about a subject type the service holds, is exported or
/// erased by the service's ``PrivacyHolder`` in one transaction with its audit record, and
/// answered with a ``PrivacyResult``. A valid request about a subject type the service does
/// not hold gets no answer from it. A refused request (unknown key, bad signature, stale) is
/// answered `rejected`, goes to the rejected topic and raises a security event; nothing is read
/// or erased. A message the runtime refuses before that (unsigned or otherwise breaking the
/// schema, another schema, oversized) is refused by every service, so every service answers it
/// `rejected` when its id reads (``answer(refused:)``).
///
/// Run it with ``StageUnitOfWork/perMessage``: the inbox makes a redelivered request a no-op.
public struct PrivacyProcessor<Holder: PrivacyHolder>: TransactionalStageProcessor {
    /// What phase 1 made of a request.
    public enum Prepared: Sendable {
        case act(StageMessage, PrivacyRequest)
        case refuse(StageMessage, PrivacyRequest, PrivacyResult.Reason, String)
        case notHeld
    }

    let holder: Holder
    /// The holder's audit trail, where each request is recorded.
    var audit: AuditTrail { holder.audit }
    let topics: PrivacyTopics
    let instance: String
    let operatorKey: @Sendable (String) -> Data?
    let windowSeconds: Int
    let securityEvent: @Sendable (StageMessage, PrivacyResult.Reason, _ keyID: String?) throws -> StageOutput

    /// - Parameters:
    ///   - operatorKey: the Ed25519 public key configured for a key id, or nil.
    ///   - windowSeconds: how far `produced_at` may lie from now.
    ///   - securityEvent: the service's `privacy_request_rejected` event for a refused request.
    public init(
        holder: Holder, topics: PrivacyTopics, instance: String,
        operatorKey: @escaping @Sendable (String) -> Data?, windowSeconds: Int,
        securityEvent: @escaping @Sendable (StageMessage, PrivacyResult.Reason, String?) throws -> StageOutput
    ) {
        self.holder = holder
        self.topics = topics
        self.instance = instance
        self.operatorKey = operatorKey
        self.windowSeconds = windowSeconds
        self.securityEvent = securityEvent
    }

    /// A `privacy_request_rejected` event on `topic`, for services without an event builder of
    /// their own; its id is derived from the request's, so a redelivery makes the same one.
    public static func securityEvents(
        topic: String, service: String, instance: String
    )
        -> @Sendable (StageMessage, PrivacyResult.Reason, String?) throws -> StageOutput
    {
        { message, reason, keyID in
            let event = SecurityEvent(
                service: service, instance: instance, event: .privacyRequestRejected, severity: .critical,
                reason: reason.rawValue, keyID: keyID)
            let id = MessageID.derived(from: message.header.id, "privacy-rejected-\(service)")
            return try .json(topic: topic, key: nil, Message(event, id: id, requestID: message.header.id))
        }
    }

    /// The input this stage consumes.
    public var inputs: [StageInput] { [StageInput(topic: topics.requests, schemas: [PrivacyRequest.schemaName])] }

    public func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let request = try message.decode(Message<PrivacyRequest>.self)
        guard holder.subjectTypes.contains(request.subjectType) else { return .notHeld }
        guard let key = operatorKey(request.keyID) else {
            return .refuse(message, request.body, .unknownKey, "key_id names no configured operator key")
        }
        guard OperatorSignature.verify(request.signature, fields: message.fields, publicKey: key) else {
            return .refuse(message, request.body, .badSignature, "signature does not verify under key_id")
        }
        guard isInWindow(request.header) else {
            return .refuse(message, request.body, .staleRequest, "produced_at is more than \(windowSeconds) s from now")
        }
        return .act(message, request.body)
    }

    /// Whether a request's `produced_at` lies within the window either side of now.
    func isInWindow(_ header: EnvelopeHeader) -> Bool {
        abs(Date().timeIntervalSince(header.producedAt.date)) <= Double(windowSeconds)
    }

    public func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        var verdicts: [StageVerdict] = []
        for prepared in batch {
            switch prepared {
            case .notHeld:
                verdicts.append(.outputs([]))
            case .refuse(let message, let request, let reason, let detail):
                var result = answer(message, request, .rejected)
                result.reason = reason
                verdicts.append(
                    .rejected(
                        StageRejection(
                            RejectionReason(reason.rawValue), detail,
                            sending: [
                                try output(message, result), try securityEvent(message, reason, request.keyID),
                            ])))
            case .act(let message, let request):
                verdicts.append(.outputs(try await act(message, request, on: connection)))
            }
        }
        return verdicts
    }

    /// A request that breaks its schema: rejected `schema_violation`, like every input that
    /// does, with the security event, whose reason is `unsigned_request` when the key id or
    /// signature is missing and `malformed` otherwise. The runtime then asks for its typed
    /// answer (``answer(refused:)``), which follows the rejected record.
    public func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        let reason = Self.violationReason(message.fields)
        // The key id only when it is one (the event's schema is strict about it).
        let keyID = message.fields["key_id"]?.string.flatMap { OperatorKeys.isValidKeyID($0) ? $0 : nil }
        throw StageRejection(.schemaViolation, violation.description, sending: [try securityEvent(message, reason, keyID)])
    }

    private func act(
        _ message: StageMessage, _ request: PrivacyRequest, on connection: PostgresConnection
    ) async throws
        -> [StageOutput]
    {
        var result = answer(message, request, .completed)
        let held: Bool
        switch request.action {
        case .export:
            let records = try await holder.export(request.subjectType, request.subject, on: connection)
            held = !records.isEmpty
            result.records = records
        case .erase:
            let erasure = try await holder.erase(request.subjectType, request.subject, on: connection)
            // Held: rows went, or rows must outlive the request (replay records in their window).
            held = !erasure.erased.isEmpty || !erasure.retained.isEmpty
            result.erased = erasure.erased
            result.retained = erasure.retained
        }
        if !held { result.status = .notFound }
        let subject = (AuditRecord.SubjectType(request.subjectType), request.subject)
        let audited = try await audit.append(
            .byOperator(
                request.keyID, request.action == .export ? .privacyExport : .privacyErase,
                subject: subject, requestID: message.header.id, outcome: .succeeded),
            idSeed: message.header.id.text, on: connection)
        result.auditSequence = audited.record.sequence
        if request.action == .erase, let index = audited.record.subjectIndex {
            // The trail keeps its entries about the subject, by index only, for as long as it exists.
            let count = try await connection.query(
                """
                SELECT count(*)::bigint FROM \(unescaped: audit.schema).hallmark_audit WHERE subject_index = \(index)
                """)[0].column(0, as: Int64.self)
            result.retained =
                (result.retained ?? []) + [
                    .init(
                        source: "\(audit.schema).hallmark_audit", count: count,
                        why: .auditTrail)
                ]
        }
        return [try output(message, result), audited.output]
    }

    private func answer(_ message: StageMessage, _ request: PrivacyRequest, _ status: PrivacyResult.Status) -> PrivacyResult {
        PrivacyResult(
            service: audit.service, instance: instance, action: request.action, subjectType: request.subjectType,
            status: status)
    }

    /// Each service answers on the one results topic: the answer's id names the service.
    private func output(_ message: StageMessage, _ result: PrivacyResult) throws -> StageOutput {
        let id = MessageID.derived(from: message.header.id, "privacy-\(audit.service)")
        return try message.reply(result, id: id, or: topics.results, key: message.correlationID)
    }
}

extension AuditRecord.SubjectType {
    /// The audit subject type of a privacy request's subject.
    init(_ type: PrivacyRequest.SubjectType) {
        switch type {
        case .deviceSerial: self = .deviceSerial
        case .partnerID: self = .partnerID
        case .sessionID: self = .sessionID
        }
    }
}

/// Where privacy requests come from and answers go (`HALLMARK_PRIVACY_REQUESTS_TOPIC`,
/// `HALLMARK_PRIVACY_RESULTS_TOPIC`), each declared once in ``settings``.
public struct PrivacyTopics: DeclaredSettings, Hashable {
    public var requests: String
    public var results: String

    public init(requests: String = declared(\.requests), results: String = declared(\.results)) {
        self.requests = requests
        self.results = results
    }

    /// Both topics, in the order `hallmark config` lists them.
    public static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.requests,
            .topic(
                "HALLMARK_PRIVACY_REQUESTS_TOPIC", default: TopicCatalogue.privacyRequests.name,
                doc: "operators' signed export and erase requests"), placing: true),
        .bind(
            \.results,
            .topic("HALLMARK_PRIVACY_RESULTS_TOPIC", default: TopicCatalogue.privacyResults.name, doc: "their answers"),
            placing: true),
    ]

    /// `HALLMARK_PRIVACY_REQUESTS_TOPIC` and `HALLMARK_PRIVACY_RESULTS_TOPIC` over the defaults.
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> PrivacyTopics {
        try PrivacyTopics().applying(Settings(env))
    }
}
