import HallmarkKafka
import Logging

extension AggregatorBench.World {
    /// What the bench's phases are measured with (``PhaseWork``): every topic of this run (the
    /// metrics topic is shared and left out), both schemas, the two services, the broker and
    /// PostgreSQL.
    func meter(
        kafka: KafkaConfiguration, logger: Logger, aggregator: BenchProcess, authority: BenchProcess
    ) -> PhaseWork.Meter {
        let topics = Set(
            self.authority.topics + self.aggregator.topics + [
                self.authority.securityTopic, "bench.aggregator.\(run).rejected",
            ])
        return PhaseWork.Meter(
            pool: pool, schemas: [self.authority.schema, self.aggregator.schema], kafka: kafka, logger: logger,
            topics: topics.sorted(), services: [("aggregator", aggregator), ("authority", authority)])
    }
}
