import HallmarkClient

extension AnswerWatcher {
    /// Every message seen so far on `topics`, with its topic.
    func outputs(on topics: [String]) -> [(topic: String, value: [UInt8])] {
        topics.flatMap { topic in messages(on: topic).map { (topic, $0) } }
    }
}
