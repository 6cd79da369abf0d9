import Foundation
import HallmarkPostgres
import Testing

@Suite("Encoding and decoding against PostgreSQL", .timeLimit(.minutes(5)))
struct TypeRoundTripTests {
    /// A date PostgreSQL can hold exactly (whole microseconds).
    static let date = Date(timeIntervalSince1970: 1_715_000_000.123456)
    static let unicode = "héllo wörld — 日本語 🌍 \u{202E}rtl 'quote' \"double\" \\ back"
    static let bytes: [UInt8] = [0, 1, 0, 0, 255, 0x5C, 0x78, 0]

    @Test func everyTypeRoundTripsThroughATable() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute(
                """
                CREATE TABLE \(unescaped: schema).everything (
                    s text, i int8, i64 int8, i32 int4, i16 int2, b bool, d float8,
                    raw bytea, data bytea, at timestamptz, id uuid)
                """)
            let id = UUID()
            let inserted = try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).everything VALUES (
                    \(Self.unicode), \(Int.max), \(Int64.min), \(Int32.min), \(Int16.max), \(true), \(Double.pi),
                    \(Self.bytes), \(Data(Self.bytes)), \(Self.date), \(id))
                """)
            #expect(inserted == 1)
            let rows = try await pool.query("SELECT * FROM \(unescaped: schema).everything")
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            let (s, i, i64, i32, i16, b, d, raw, data, at, uuid) = try row.decode(
                (String, Int, Int64, Int32, Int16, Bool, Double, [UInt8], Data, Date, UUID).self)
            #expect(s == Self.unicode)
            #expect(i == .max)
            #expect(i64 == .min)
            #expect(i32 == .min)
            #expect(i16 == .max)
            #expect(b == true)
            #expect(d == .pi)
            #expect(raw == Self.bytes)
            #expect(data == Data(Self.bytes))
            #expect(at == Self.date)
            #expect(uuid == id)
            #expect(try row.column("s", as: String.self) == Self.unicode)
            #expect(try row.column(10, as: UUID.self) == id)
        }
    }

    @Test func nullsRoundTripAsOptionals() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute(
                """
                CREATE TABLE \(unescaped: schema).nullable (
                    s text, i int8, i32 int4, i16 int2, b bool, d float8, raw bytea, data bytea, at timestamptz, id uuid)
                """)
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).nullable VALUES (\(String?.none), \(Int?.none), \(Int32?.none),
                    \(Int16?.none), \(Bool?.none), \(Double?.none), \([UInt8]?.none), \(Data?.none), \(Date?.none), \(UUID?.none))
                """)
            let row = try #require(try await pool.query("SELECT * FROM \(unescaped: schema).nullable").first)
            let values = try row.decode((String?, Int?, Int32?, Int16?, Bool?, Double?, [UInt8]?, Data?, Date?, UUID?).self)
            let children = Mirror(reflecting: values).children.map { "\($0.value)" }
            #expect(children == Array(repeating: "nil", count: 10))
            #expect(try row.cell(named: "s").isNull)
            let some = try #require(try await pool.query("SELECT \(Int64?.some(7)) AS n").first)
            #expect(try some.column("n", as: Int64?.self) == 7)
        }
    }

    @Test func valuesRoundTripThroughBareParameters() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let rows = try await pool.query(
                """
                SELECT \(""), \([UInt8]()), \(Double.nan), \(Double.infinity), \(-Double.infinity), \(-0.0),
                       \(1e-300), \(Int16.min), \(false)
                """)
            let (empty, noBytes, nan, inf, negInf, negZero, tiny, small, no) = try #require(rows.first).decode(
                (String, [UInt8], Double, Double, Double, Double, Double, Int16, Bool).self)
            #expect(empty == "")
            #expect(noBytes == [])
            #expect(nan.isNaN)
            #expect(inf == .infinity)
            #expect(negInf == -.infinity)
            #expect(negZero == 0 && negZero.sign == .minus)
            #expect(tiny == 1e-300)
            #expect(small == .min)
            #expect(no == false)
        }
    }

    @Test(arguments: [
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 946_684_800),  // 2000-01-01, PostgreSQL's epoch
        Date(timeIntervalSince1970: -2_208_988_800.5),  // 1900, before 1970
        Date(timeIntervalSince1970: 253_402_300_799.999999),  // 9999-12-31 23:59:59.999999
        Date(timeIntervalSince1970: -62_198_755_200),  // 0002-01-01 BC
        Date(timeIntervalSince1970: 1_709_251_199.000001),  // 2024-02-29 23:59:59.000001
    ])
    func datesRoundTripAndAgreeWithTheServer(date: Date) async throws {
        try await TestDatabase.withSchema { pool, _ in
            let row = try #require(
                try await pool.query(
                    "SELECT \(date), extract(epoch FROM \(date))::text"
                ).first)
            let back = try row.column(0, as: Date.self)
            // Microsecond resolution, or the Double's own when that is coarser (year 9999).
            let tolerance = 1e-6 + date.timeIntervalSince1970.ulp
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) <= tolerance)
            let epoch = try #require(Double(try row.column(1, as: String.self)))
            #expect(abs(epoch - date.timeIntervalSince1970) <= tolerance)
        }
    }

    @Test func serverTimestampsParse() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let row = try #require(
                try await pool.query(
                    """
                    SELECT '2024-02-29 23:59:59.5+05:30'::timestamptz, '2024-02-29 12:00:00'::timestamp,
                           '2024-02-29'::date, 'infinity'::timestamptz, '-infinity'::timestamptz
                    """
                ).first)
            let (tz, plain, day, future, past) = try row.decode((Date, Date, Date, Date, Date).self)
            #expect(tz.timeIntervalSince1970 == 1_709_231_399.5)
            #expect(plain.timeIntervalSince1970 == 1_709_208_000)
            #expect(day.timeIntervalSince1970 == 1_709_164_800)
            #expect(future.timeIntervalSince1970 == .infinity)
            #expect(past.timeIntervalSince1970 == -.infinity)
        }
    }

    @Test func stringsBindToUUIDAndJSONColumns() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).docs (id uuid, body jsonb)")
            let id = UUID()
            try await pool.execute("INSERT INTO \(unescaped: schema).docs VALUES (\(id.uuidString), \("{\"a\": 1}"))")
            let row = try #require(try await pool.query("SELECT id, body FROM \(unescaped: schema).docs").first)
            #expect(try row.decode((UUID, String).self) == (id, "{\"a\": 1}"))
        }
    }

    @Test func textWithANulCharacterIsRejectedNotTruncated() async throws {
        try await TestDatabase.withSchema { pool, _ in
            await #expect {
                try await pool.query("SELECT \("abc\u{0}def")")
            } throws: { ($0 as? PostgresError)?.code == .invalidQuery }
        }
    }
}

enum KeyStatus: String, PostgresCodable {
    case active, revoked
}

enum Priority: Int16, PostgresCodable {
    case low = 1, high = 9
}

@Suite("RawRepresentable types", .timeLimit(.minutes(2)))
struct RawRepresentableTests {
    @Test func enumsRoundTripThroughTheirRawValues() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TYPE \(unescaped: schema).key_status AS ENUM ('active', 'revoked')")
            try await pool.execute(
                "CREATE TABLE \(unescaped: schema).keys (status \(unescaped: schema).key_status, priority int2)")
            try await pool.execute("INSERT INTO \(unescaped: schema).keys VALUES (\(KeyStatus.revoked), \(Priority.high))")
            let row = try #require(try await pool.query("SELECT status, priority FROM \(unescaped: schema).keys").first)
            let (status, priority) = try row.decode((KeyStatus, Priority).self)
            #expect(status == .revoked)
            #expect(priority == .high)
            let unknown = try #require(try await pool.query("SELECT 'lost'::text").first)
            #expect(throws: PostgresError.self) { try unknown.column(0, as: KeyStatus.self) }
        }
    }
}
