import HallmarkPostgres
import Testing

@Suite("Transactions", .timeLimit(.minutes(5)))
struct TransactionTests {
    struct Abort: Error {}

    private func count(_ pool: PostgresPool, _ schema: String) async throws -> Int {
        try await pool.query("SELECT count(*) FROM \(unescaped: schema).items").first!.column(0, as: Int.self)
    }

    @Test func commitsWhenTheBodyReturns() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).items (n int)")
            let inserted = try await pool.transaction { conn in
                try await conn.execute("INSERT INTO \(unescaped: schema).items VALUES (\(1)), (\(2))")
            }
            #expect(inserted == 2)
            #expect(try await count(pool, schema) == 2)
        }
    }

    @Test func rollsBackWhenTheBodyThrows() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).items (n int)")
            await #expect(throws: Abort.self) {
                try await pool.transaction { conn in
                    try await conn.execute("INSERT INTO \(unescaped: schema).items VALUES (\(1))")
                    throw Abort()
                }
            }
            #expect(try await count(pool, schema) == 0)
            // The connection went back to the pool, outside any transaction.
            #expect(pool.statistics == .init(open: 1, idle: 1, waiting: 0))
        }
    }

    @Test func aFailedStatementInsideMakesTheCommitThrow() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).items (n int PRIMARY KEY)")
            await #expect {
                try await pool.transaction { conn in
                    try await conn.execute("INSERT INTO \(unescaped: schema).items VALUES (\(1))")
                    // Swallowing the error leaves the transaction aborted.
                    _ = try? await conn.execute("INSERT INTO \(unescaped: schema).items VALUES (\(1))")
                }
            } throws: { ($0 as? PostgresError)?.code == .queryFailed }
            #expect(try await count(pool, schema) == 0)
        }
    }

    @Test func aConnectionLeftInATransactionIsNotReused() async throws {
        try await TestDatabase.withSchema(poolSize: 2) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).items (n int)")
            try await pool.withConnection { conn in
                try await conn.query("BEGIN")
                try await conn.execute("INSERT INTO \(unescaped: schema).items VALUES (\(1))")
            }
            #expect(pool.statistics == .init(open: 0, idle: 0, waiting: 0))
            #expect(try await count(pool, schema) == 0)
        }
    }
}

/// Services call the pool from actors; the closures run on the caller's actor.
actor Ledger {
    let pool: PostgresPool
    let schema: String
    var committed = 0

    init(pool: PostgresPool, schema: String) {
        self.pool = pool
        self.schema = schema
    }

    func record(_ amount: Int) async throws {
        try await pool.transaction { conn in
            try await conn.execute("INSERT INTO \(unescaped: schema).ledger VALUES (\(amount))")
            committed += 1  // actor state, touched inside the transaction body
        }
    }
}

@Suite("Actor callers", .timeLimit(.minutes(5)))
struct ActorCallerTests {
    @Test func transactionsFromAnActor() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).ledger (amount int)")
            let ledger = Ledger(pool: pool, schema: schema)
            try await ledger.record(5)
            try await ledger.record(7)
            #expect(await ledger.committed == 2)
            let sum = try await pool.query("SELECT sum(amount)::int8 FROM \(unescaped: schema).ledger")
            #expect(try sum.first?.column(0, as: Int.self) == 12)
        }
    }
}
