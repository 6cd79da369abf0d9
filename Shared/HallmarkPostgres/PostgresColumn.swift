/// A result column's name and type.
public struct PostgresColumn: Sendable, Hashable {
    public let name: String
    public let dataType: PostgresDataType

    public init(name: String, dataType: PostgresDataType) {
        self.name = name
        self.dataType = dataType
    }
}
