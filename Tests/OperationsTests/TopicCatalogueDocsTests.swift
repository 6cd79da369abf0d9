import Foundation
import HallmarkCLICore
import HallmarkMessages
import Testing

/// docs/operations.md's topic table is ``TopicCatalogue``: every topic listed once, in order,
/// with the catalogue's schemas, key, producers and consumers; and every schema a topic names
/// is one of the `proto-json/` documents the messages embed.
@Suite("Topic catalogue", .timeLimit(.minutes(1)))
struct TopicCatalogueDocsTests {
    static let header = "| topic | schemas | key | producers | consumers |"

    /// The table's rows, each cell trimmed.
    static func rows() throws -> [[String]] {
        let docs = try AlertRulesTests.text("docs/operations.md")
        let lines = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: header), "docs/operations.md has no topic catalogue table")
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    @Test func theDocsTableIsTheCatalogue() throws {
        let rows = try Self.rows()
        let expected = TopicCatalogue.all.map { topic in
            [
                "`\(topic.name)`", topic.schemas.map { "`\($0)`" }.joined(separator: ", "), topic.key,
                topic.producers.joined(separator: ", "), topic.consumers.joined(separator: ", "),
            ]
        }
        #expect(rows.map(\.first) == expected.map(\.first), "the table's topics differ from the catalogue's")
        for (row, topic) in zip(rows, expected) { #expect(row == topic) }
    }

    @Test func everyTopicIsNamedOnceAndItsSchemasAreEmbedded() {
        let names = TopicCatalogue.all.map(\.name)
        #expect(Set(names).count == names.count)
        for topic in TopicCatalogue.all {
            #expect(!topic.producers.isEmpty && !topic.consumers.isEmpty, "\(topic.name)")
            for schema in topic.schemas { #expect(MessageSchemas.ids[schema] != nil, "\(topic.name): \(schema)") }
        }
    }

    /// Every topic variable `hallmark config` lists defaults to a catalogued topic.
    @Test func everyTopicSettingDefaultsToACataloguedTopic() {
        let names = Set(TopicCatalogue.all.map(\.name))
        let topics = ConfigCommand.sections(service: nil).flatMap(\.variables).filter { $0.accepted.hasPrefix("a topic name") }
        #expect(topics.count >= 30)
        for variable in topics { #expect(names.contains(variable.defaultValue), "\(variable.name)") }
    }
}
