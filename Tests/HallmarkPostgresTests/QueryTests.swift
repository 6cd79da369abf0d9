import Foundation
import HallmarkPostgres
import Testing

@Suite("PostgresQuery interpolation", .timeLimit(.minutes(5)))
struct QueryTests {
    @Test func interpolatedValuesBecomeBinds() {
        let id: Int64 = 42
        let name = "O'Brien"
        let query: PostgresQuery = "SELECT x FROM t WHERE id = \(id) AND name = \(name)"
        #expect(query.sql == "SELECT x FROM t WHERE id = $1 AND name = $2")
        #expect(
            query.binds == [
                PostgresBind(type: .int8, value: .text("42")),
                PostgresBind(type: .unspecified, value: .text("O'Brien")),
            ])
    }

    @Test func stringLiteralsInsideInterpolationsAreBoundToo() {
        let query: PostgresQuery = "SELECT \("'; DROP TABLE t; --")"
        #expect(query.sql == "SELECT $1")
        #expect(query.binds.count == 1)
    }

    @Test func nilBindsNullWithTheWrappedType() {
        let missing: Int32? = nil
        let query: PostgresQuery = "SELECT \(missing)"
        #expect(query.sql == "SELECT $1")
        #expect(query.binds == [PostgresBind(type: .int4, value: .null)])
    }

    @Test func bytesBindInBinaryFormat() {
        let bytes: [UInt8] = [0, 1, 0, 255]
        let query: PostgresQuery = "SELECT \(bytes), \(Data(bytes))"
        #expect(query.binds.map(\.value) == [.binary(bytes), .binary(bytes)])
        #expect(query.binds.map(\.type) == [.bytea, .bytea])
    }

    @Test func nestedQueriesAreRenumbered() {
        let filter: PostgresQuery = "a = \(1) AND b = \(2)"
        let query: PostgresQuery = "SELECT * FROM t WHERE c = \(3) AND \(filter) AND d = \(4)"
        #expect(query.sql == "SELECT * FROM t WHERE c = $1 AND a = $2 AND b = $3 AND d = $4")
        #expect(query.binds.map(\.value) == ["3", "1", "2", "4"].map { .text($0) })
    }

    @Test func descriptionNeverShowsValues() {
        let secret = "hunter2"
        let query: PostgresQuery = "SELECT \(secret)"
        #expect(!"\(query)".contains(secret))
        #expect(!String(reflecting: query.sql).contains(secret))
    }

    @Test func unescapedAcceptsOnlyPlainIdentifiers() {
        let query: PostgresQuery = "CREATE SCHEMA \(unescaped: "signer_v2")"
        #expect(query.sql == "CREATE SCHEMA signer_v2")
        #expect(query.binds.isEmpty)
        for bad in ["", "Signer", "1abc", "a-b", "a b", "a;DROP TABLE x", "x\"y", String(repeating: "a", count: 64), "é"] {
            #expect(!PostgresQuery.isValidIdentifier(bad), "\(bad) should be rejected")
            let rejected: PostgresQuery = "CREATE SCHEMA \(unescaped: bad)"
            #expect(rejected.sql == "CREATE SCHEMA <invalid identifier>")
        }
        #expect(PostgresQuery.isValidIdentifier("_a9"))
    }

    @Test func doublesUseInputSyntaxForSpecialValues() {
        let query: PostgresQuery = "SELECT \(Double.nan), \(Double.infinity), \(-Double.infinity), \(0.1)"
        #expect(query.binds.map(\.value) == ["NaN", "Infinity", "-Infinity", "0.1"].map { .text($0) })
    }
}

@Suite("Redacted descriptions", .timeLimit(.minutes(2)))
struct RedactionTests {
    @Test func bindsCellsAndConfigurationsNeverPrintValues() throws {
        let secret = "hunter2-secret"
        let query: PostgresQuery = "SELECT \(secret), \(Array(secret.utf8))"
        #expect(!"\(query.binds)".contains(secret))
        #expect(!String(reflecting: query.binds).contains(secret))
        let cell = PostgresCell(bytes: Array(secret.utf8), dataType: .text, columnName: "c", columnIndex: 0)
        #expect(!"\(cell)".contains(secret) && !"\(cell)".contains("104"))
        let configuration = try PostgresConfiguration(url: "postgresql://u:\(secret)@h/db")
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(secret))
        #expect(!String(reflecting: configuration).contains(secret))
    }
}
