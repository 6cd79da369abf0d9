/// The privacy stage a service adds to its own.
extension ServiceContext {
    /// The stage that answers privacy requests with `holder`: one transaction per request with
    /// the inbox, in the consumer group `…-privacy`; a refused request raises a
    /// `privacy_request_rejected` event on `securityTopic`.
    public func privacyStage<Holder: PrivacyHolder>(
        _ holder: Holder, topics: PrivacyTopics,
        operatorKeys: OperatorKeys, windowSeconds: Int = 300,
        securityTopic: String
    ) throws -> Stage<PrivacyProcessor<Holder>> {
        let processor = PrivacyProcessor(
            holder: holder, topics: topics, instance: instance, operatorKey: { operatorKeys[$0] },
            windowSeconds: windowSeconds,
            securityEvent: PrivacyProcessor<Holder>.securityEvents(
                topic: securityTopic, service: holder.audit.service,
                instance: instance))
        return try stage(processor, inputs: processor.inputs, groupSuffix: "-privacy")
    }
}
