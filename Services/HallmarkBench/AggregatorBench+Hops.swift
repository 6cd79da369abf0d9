import Foundation
import AggregatorCore
import HallmarkClient
import HallmarkCore
import HallmarkKafka
import HallmarkMessages

extension AggregatorBench {
    /// Where a bundle's time goes at low load, hop by hop, from the broker's create times (the
    /// moment each producer was handed the message): the intake (submission → token request),
    /// the authority (→ token result), the joiner and the log writer (→ submission result), and
    /// the bench's own read of the answer.
    struct Hops {
        var intake: [Double] = []
        var authority: [Double] = []
        var joinerAndWriter: [Double] = []
        var answerRead: [Double] = []
        var endToEnd: [Double] = []
    }

    /// Sends `count` bundles at `rate` per second, then reads the four topics back and ties each
    /// bundle's messages together: the token request's id is keyed from the submission's
    /// (``World/idKey``), and each answer names its request.
    func hops(_ count: Int, rate: Double, from fleet: [ProvisioningFile]) async throws -> Hops {
        let bundles = try self.bundles(count, from: fleet)
        let sent = try await submit(bundles, pace: rate)
        let answeredAt = sent.latencies
        let g = world.aggregator
        let topics = [g.submissionInput, g.tokenRequests, g.tokenResults, g.submissionOutput]
        var config = io.kafka
        config.properties["auto.offset.reset"] = "earliest"
        let reader = try KafkaConsumer(
            configuration: config, groupID: "bench-hops-\(UUID())", topics: topics, bufferCapacity: 8192,
            wakesOnProduce: true, logger: io.logger)
        try reader.start()
        let timer = Task {
            try? await Task.sleep(for: .seconds(60))
            reader.beginClose()
        }
        // Each bundle's four create times, by the id each topic names it with.
        let submissions = Set(bundles.map(\.id.text))
        var tokenOf: [String: String] = [:]
        for bundle in bundles { tokenOf[world.idKey.derive(from: bundle.id.uuid, "token-request").text] = bundle.id.text }
        var times: [String: [String: Int64]] = [:]
        var found = 0
        for await message in reader.messages {
            guard let at = message.timestampMilliseconds, let json = try? JSONReader.parse(message.value) else { continue }
            // A batch carrier's items each name their bundle; they share its create time.
            for unit in json["items"]?.array ?? [json] {
                let name: String?
                switch message.topic {
                case g.submissionInput: name = unit["id"]?.string.flatMap { submissions.contains($0) ? $0 : nil }
                case g.tokenRequests: name = unit["id"]?.string.flatMap { tokenOf[$0] }
                case g.tokenResults: name = unit["request_id"]?.string.flatMap { tokenOf[$0] }
                default: name = unit["request_id"]?.string.flatMap { submissions.contains($0) ? $0 : nil }
                }
                guard let name, times[name, default: [:]][message.topic] == nil else { continue }
                times[name, default: [:]][message.topic] = at
                found += 1
            }
            if found == bundles.count * topics.count { break }
        }
        timer.cancel()
        await reader.close()
        var hops = Hops()
        for bundle in bundles {
            guard let t = times[bundle.id.text], let s = t[g.submissionInput], let q = t[g.tokenRequests],
                let r = t[g.tokenResults], let a = t[g.submissionOutput], let total = answeredAt[bundle.id.text]
            else { continue }
            hops.intake.append(Double(q - s))
            hops.authority.append(Double(r - q))
            hops.joinerAndWriter.append(Double(a - r))
            hops.answerRead.append(max(0, total - Double(a - s)))
            hops.endToEnd.append(total)
        }
        return hops
    }
}
