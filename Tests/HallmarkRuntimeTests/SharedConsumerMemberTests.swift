import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import HallmarkStageTesting
import Logging
import Testing

/// Which stages a process's shared consumer takes (``SharedConsumerMember``): those of partition
/// batches, with their group, topics and buffer; a stage of key lanes, which stops taking
/// messages whenever its in-flight bound is reached, keeps a consumer of its own.
@Suite("Stages that share the process's consumer", .timeLimit(.minutes(1)))
struct SharedConsumerMemberTests {
    func stage(_ dispatch: StageDispatch) -> Stage<EchoBatchProcessor> {
        var config = StageConfiguration(
            service: "share-test", inputs: [StageInput(topic: "in", schemas: [ProbeRequest.schemaName])],
            groupID: "share-test-tokens", dispatch: dispatch, maxBatch: 100)
        config.wakesOnProduce = true
        return Stage(
            configuration: config, transport: MemoryBroker().transport(), database: nil,
            processor: EchoBatchProcessor(output: "out"), logger: Logger(label: "share-test"))
    }

    @Test func stagesOfPartitionBatchesShareAndKeyLanesDoNot() throws {
        let batches = stage(.partitionBatches)
        let member = try #require(batches.consumerMember)
        #expect(member.groupID == "share-test-tokens")
        #expect(member.topics == ["in"])
        #expect(member.bufferCapacity == 400)
        #expect(member.wakesOnProduce)
        let lanes = stage(.keyLanes)
        #expect(lanes.consumerMember == nil)
        #expect(lanes.consumerGroup == "share-test-tokens")
    }

    /// Fewer than two such stages share nothing: each keeps its own group.
    @Test func oneMemberAloneSharesNothing() throws {
        let shared = SharedConsumer(configuration: KafkaConfiguration(), groupID: "share-test", logger: Logger(label: "t"))
        let member = try #require(stage(.partitionBatches).consumerMember)
        try shared.declare([member])
        #expect(shared.members.isEmpty)
        #expect(shared.open(member, rebalanceListener: { _ in }) == nil)
    }
}
