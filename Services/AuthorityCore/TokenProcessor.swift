import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The token-validation stage: PASS or FAIL with one reason, and nothing else. It answers
/// the aggregator's questions about certificate bundles' devices too (DESIGN BM-CERT,
/// ``TokenProcessor+Devices``), in the same batches and carriers.
///
/// Order: malformed → unknown_table → authentication_failed (opening) → replayed_token →
/// unknown_device → table_not_assigned → blacklisted. The device is found through the NUC
/// hash the token decrypts to (its keyed blind index), so neither an image hash nor a device
/// id ever reaches the authority.
///
/// It works a batch at a time, without a per-message transaction: master keys are in
/// memory, the batch's replay records are written in one statement (``ReplayLedger``), its
/// devices come from a bounded cache with one query for the misses, and counts are flushed
/// once a second (``ValidationCounter``). Redelivery is safe without the runtime's inbox: the
/// replay record holds the message id, so the same message is judged the same way again and
/// its answer (same derived id) is the same.
package struct TokenProcessor: StageProcessor {
    package typealias Prepared = Ruling
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let tables: KeyTableStore
    let devices: DeviceDirectory
    let ledger: ReplayLedger
    let counter: ValidationCounter
    let pool: PostgresPool
    let metrics: AuthorityMetrics
    let events: AuthorityEvents
    /// Where a blacklisting by the abuse threshold is recorded.
    let audit: AuditTrail
    /// The largest result carrier it sends (the Kafka configuration's limit).
    let maxMessageBytes: Int

    /// Creates the processor.
    package init(
        configuration: AuthorityConfiguration, secrets: AuthoritySecrets, tables: KeyTableStore,
        devices: DeviceDirectory, ledger: ReplayLedger, counter: ValidationCounter, pool: PostgresPool,
        metrics: AuthorityMetrics, instance: String, maxMessageBytes: Int = KafkaConfiguration.declared(\.maxMessageBytes)
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.configuration = configuration
        self.secrets = secrets
        audit = configuration.auditTrail(secrets)
        self.tables = tables
        self.devices = devices
        self.ledger = ledger
        self.counter = counter
        self.pool = pool
        self.metrics = metrics
        events = AuthorityEvents(
            topic: configuration.securityTopic, instance: instance, metrics: metrics,
            secrets: secrets)
    }

    var schema: String { configuration.schema }

    /// One message on its way through the steps.
    package struct Judgement: Sendable {
        let message: StageMessage
        var reason: ValidationReason?
        var decided = false
        var opened: BirthmarkOpenedToken?
        var replayKey: ReplayLedger.Key?
        /// A device question's device, its handle opened (``TokenProcessor+Devices``).
        var serial: String?
        /// The same message was judged before (not a new validation).
        var redelivered = false
        var security: [StageOutput] = []

        /// Whether it is a question about a certificate bundle's device, not a token.
        var asksDevice: Bool { message.header.schema == DeviceRequest.schemaName }

        mutating func decide(_ reason: ValidationReason?) {
            self.reason = reason
            decided = true
        }
    }

    /// One consumed message: a single request, or a batch carrier of them (DESIGN §2).
    package struct Ruling: Sendable {
        let message: StageMessage
        /// Its requests: the message itself, or the carrier's items.
        var items: [Judgement]
        var isCarrier: Bool { message.header.schema == TokenRequestBatch.schemaName }
    }

    /// The stage's input: single requests and batch carriers on the same topic.
    package var inputs: [StageInput] {
        [StageInput(topic: configuration.tokenInput, schemas: Set(Self.questions + [TokenRequestBatch.schemaName]))]
    }

    /// The questions it answers, alone or in a carrier.
    static let questions = [TokenRequest.schemaName, DeviceRequest.schemaName]

    /// Phase 1: parses and opens each token (malformed, unknown_table and authentication_failed
    /// end here). A carrier's item that breaks its own schema is FAIL `malformed`; the others
    /// proceed.
    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Ruling {
        guard message.header.schema == TokenRequestBatch.schemaName else {
            var j = Judgement(message: message)
            if j.asksDevice { try openHandle(&j) } else { try await open(&j) }
            return Ruling(message: message, items: [j])
        }
        var items: [Judgement] = []
        for item in BatchCarrier.items(of: message, itemSchemas: Self.questions) {
            var j = Judgement(message: item.message)
            if item.violation != nil {
                j.decide(.malformed)
            } else if j.asksDevice {
                try openHandle(&j)
            } else {
                try await open(&j)
            }
            items.append(j)
        }
        return Ruling(message: message, items: items)
    }

    /// Phase 2 for a batch, carriers' items and single requests together: one replay
    /// statement, one device query, the verdicts; one result carrier per request carrier.
    package func commit(_ batch: [Ruling], context: StageCommitContext) async throws -> [StageVerdict] {
        let start = ContinuousClock.now
        var all = batch.flatMap(\.items)
        try await claim(&all)
        try await judgeDevices(&all)
        try await judgeCertified(&all)
        metrics.validationTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        var next = 0
        return try batch.map { ruling in
            let judged = all[next..<next + ruling.items.count]
            next += ruling.items.count
            let security = judged.flatMap(\.security)
            guard ruling.isCarrier else { return .outputs(judged.map { verdict($0.message, $0.reason) } + security) }
            return .outputs(try carry(judged.map { result($0.message, $0.reason) }, for: ruling.message) + security)
        }
    }

    /// A token request that breaks its schema (upper-case hex, a table listed twice, an
    /// extra field such as an image hash) is answered FAIL `malformed` at once.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        guard message.header.schema == TokenRequestBatch.schemaName else { return [verdict(message, .malformed)] }
        // A carrier that breaks its own schema: each item whose id can be read is FAIL.
        let items = BatchCarrier.items(of: message, itemSchemas: Self.questions)
        guard !items.isEmpty else { return nil }
        return try carry(items.map { result($0.message, .malformed) }, for: message)
    }

    /// A token request refused before validation with a readable id (a broken envelope, too
    /// large, failing) is answered FAIL `malformed` at once, so the aggregator waiting on it
    /// hears at once: only the aggregator sends token requests, and a token result has no code
    /// of the runtime's. A refused carrier is answered so under its own id: its items were not
    /// judged, and nothing condemns them; the aggregator resends each alone
    /// (``PendingRequests``), so a poison item is found by itself.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        metrics.record(.malformed)
        return [try message.reply(TokenResult(reason: .malformed), or: configuration.tokenOutput)]
    }

    /// Result carriers for a request carrier: `results` (each a whole token result) under the
    /// carrier's reply topic and key, and ids derived from the carrier's.
    private func carry(_ results: [[UInt8]], for carrier: StageMessage) throws -> [StageOutput] {
        try BatchCarrier.outputs(
            topic: carrier.replyTopic(or: configuration.tokenOutput), key: carrier.key, items: results,
            maxBytes: maxMessageBytes, id: carrier.resultID
        ) { id in carrier.answerHeader(TokenResultBatch.schemaName, id: id) }
    }

    /// The verdict message for `message`, on its reply topic.
    func verdict(_ message: StageMessage, _ reason: ValidationReason?) -> StageOutput {
        StageOutput(
            topic: message.replyTopic(or: configuration.tokenOutput), key: message.key.map { Array($0.utf8) },
            value: result(message, reason))
    }

    /// The verdict's bytes (a carrier's item), counted in the metrics.
    func result(_ message: StageMessage, _ reason: ValidationReason?) -> [UInt8] {
        metrics.record(reason)
        let id = MessageID.derived(from: message.header.id, "token-result")
        guard message.header.schema != DeviceRequest.schemaName else {
            return (try? JSONCoding.encode(message.answer(DeviceResult(reason: reason), id: id))) ?? []
        }
        return message.answer(TokenResult(reason: reason), id: id).jsonBytes
    }

    /// Opens the token: malformed, unknown_table and authentication_failed end here. The stage
    /// has already held the request to its schema (one layout, no other field, so never an
    /// image hash; table ids and key indices in range); what is left to refuse as malformed is
    /// what a schema cannot say, such as a ciphertext's length once decoded.
    private func open(_ j: inout Judgement) async throws {
        // The token's parts are decoded once, by the validator (a token whose parts cannot
        // be read is malformed there).
        guard let token = Self.request(in: j.message)?.token else { return j.decide(.malformed) }
        let masters = try await tables.masterKeys(for: token.referencedTables)
        switch BirthmarkTokenValidator.openSealed(token, masterKeys: masters) {
        case .success(let o):
            j.opened = o.opened
            j.replayKey = ReplayLedger.key(o.sealed)
        case .failure(let r):
            if r == .authenticationFailed {
                j.security.append(try events.output(for: j.message, .tokenRejected, .warning, reason: r.rawValue))
            }
            j.decide(.token(r))
        }
    }

    /// The token a request carries and its decoded nonce, ciphertext and tag; nil when they
    /// cannot be read (the request is malformed). The stage reads the same in two steps:
    /// ``request(in:)``, then the validator decodes the parts as it opens the token
    /// (`BirthmarkTokenValidator.openSealed`); tests and fuzz targets read both at once here.
    package static func token(in message: StageMessage) -> (BirthmarkToken, AESGCM256.Sealed)? {
        guard let token = request(in: message)?.token, let parts = try? token.sealedParts() else {
            return nil
        }
        return (token, parts)
    }

    /// The request a message carries, read from its checked members (nil when it cannot be
    /// read: the request is malformed).
    static func request(in message: StageMessage) -> TokenRequest? {
        TokenRequest(fields: message.fields) ?? (try? message.decode(TokenRequest.self))
    }

    /// Records the opened tokens' replay keys in one statement: replayed_token ends here.
    private func claim(_ all: inout [Judgement]) async throws {
        let open = all.indices.filter { !all[$0].decided && !all[$0].asksDevice }
        let claims = open.map { i in ReplayLedger.Claim(key: all[i].replayKey!, messageID: all[i].message.header.id.uuid) }
        for (i, outcome) in zip(open, try await ledger.claim(claims)) {
            switch outcome {
            case .fresh: break
            case .redelivered: all[i].redelivered = true
            case .replayed:
                all[i].security.append(
                    try events.output(
                        for: all[i].message, .replayedToken, .warning,
                        reason: "replayed_token"))
                all[i].decide(.replayedToken)
            }
        }
    }

    /// Finds the devices (one query for the cache's misses), counts the validation, applies
    /// the abuse thresholds and judges the device.
    private func judgeDevices(_ all: inout [Judgement]) async throws {
        let open = all.indices.filter { !all[$0].decided && !all[$0].asksDevice }
        let index = open.map { secrets.nucIndex(all[$0].opened!.nucHash) }
        let found = try await devices.lookup(nucIndices: Array(Set(index)), pool: pool)
        for (i, nucIndex) in zip(open, index) {
            guard let device = found[nucIndex] else {
                all[i].security.append(
                    try events.output(
                        for: all[i].message, .tokenRejected, .warning,
                        reason: "unknown_device"))
                all[i].decide(.token(.unknownDevice))
                continue
            }
            try await judge(&all[i], device: device)
        }
    }

    func judge(_ j: inout Judgement, device: DeviceEntry) async throws {
        // A redelivered request is not a new validation: resends never push a camera over.
        let count = j.redelivered ? counter.current(device.id) : counter.record(device.id)
        if count >= configuration.warnThreshold, counter.mayWarn(device.id), try await markWarned(device) {
            j.security.append(
                try events.output(
                    for: j.message, .abuseWarning, .warning, reason: "validation_rate",
                    serial: device.serial, count: count))
        }
        // A token's device as the validator judges it; a certificate's, by its blacklisting alone.
        let outcome =
            j.opened.map { BirthmarkTokenValidator.judge($0, device: device.record) }
            ?? (device.blacklisted ? BirthmarkTokenOutcome.fail(.blacklisted) : .pass)
        if count >= configuration.blacklistThreshold, !device.blacklisted, let audited = try await autoBlacklist(device) {
            devices.invalidate(serial: device.serial)
            j.security.append(audited)
            j.security.append(
                try events.output(
                    for: j.message, .abuseBlacklisted, .critical, reason: "validation_rate",
                    serial: device.serial, count: count))
        }
        guard let reason = outcome.reason else { return j.decide(nil) }
        j.security.append(try events.output(for: j.message, .tokenRejected, .warning, reason: reason.rawValue))
        j.decide(.token(reason))
    }
}
