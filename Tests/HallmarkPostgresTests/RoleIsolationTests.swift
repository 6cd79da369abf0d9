import Foundation
import HallmarkPostgres
import Testing

/// DESIGN.md §3 on the local cluster that deploy/local/up sets up: every service logs in as its
/// own role, which owns only its schema; no role is privileged; logins need the password.
@Suite("Least privilege: one role per service", .timeLimit(.minutes(3)))
struct RoleIsolationTests {
    /// A login role and the schema it owns (nil for the test role, which owns none).
    struct Role: Sendable {
        let name: String
        let schema: String?
        let url: String
    }

    struct MissingRoles: Error, CustomStringConvertible {
        let variable: String
        var description: String {
            "\(variable) is not set: these tests need the roles of deploy/local/up (source deploy/local/env.sh)"
        }
    }

    static let services = ["signer", "authority", "gateway", "aggregator", "probe", "edge"]

    /// The services' roles from `HALLMARK_<SERVICE>_POSTGRES_URL`, then the test role.
    static func roles() throws -> [Role] {
        let environment = ProcessInfo.processInfo.environment
        var roles = try services.map { service in
            let variable = "HALLMARK_\(service.uppercased())_POSTGRES_URL"
            guard let url = environment[variable], !url.isEmpty else { throw MissingRoles(variable: variable) }
            return Role(name: "hallmark_\(service)", schema: service, url: url)
        }
        roles.append(Role(name: "hallmark_test", schema: nil, url: try TestDatabase.url))
        return roles
    }

    static func pool(_ role: Role) throws -> PostgresPool {
        PostgresPool(configuration: try PostgresConfiguration(url: role.url, poolSize: 1), logger: TestDatabase.logger)
    }

    /// Runs `statement` and returns the SQLSTATE it failed with, or nil when it succeeded.
    static func sqlState(_ pool: PostgresPool, _ statement: PostgresQuery) async throws -> String? {
        do {
            try await pool.execute(statement)
            return nil
        } catch let error as PostgresError where !error.isConnectionError {
            return error.sqlState ?? "none"
        }
    }

    @Test func everyRoleIsRefusedOnEveryOtherServicesSchema() async throws {
        let roles = try Self.roles()
        let table = "isolation_" + String(UUID().uuidString.prefix(8)).lowercased()
        try await ServerGate.withShared {
            let pools = try roles.map(Self.pool)
            defer { pools.forEach { $0.close() } }
            let owners = zip(roles, pools).filter { $0.0.schema != nil }
            // Each owner makes a table in its schema and can use it.
            for (owner, pool) in owners {
                let schema = owner.schema!
                try await pool.execute("CREATE TABLE \(unescaped: schema).\(unescaped: table) (id int)")
                try await pool.execute("INSERT INTO \(unescaped: schema).\(unescaped: table) VALUES (1)")
                let count = try await pool.query("SELECT count(*) FROM \(unescaped: schema).\(unescaped: table)")
                #expect(try count.first?.column(0, as: Int.self) == 1, "\(owner.name) cannot use its own schema")
            }
            do {
                for (owner, _) in owners {
                    let schema = owner.schema!
                    for (other, pool) in zip(roles, pools) where other.name != owner.name {
                        let attempts: [(String, PostgresQuery)] = [
                            ("SELECT", "SELECT id FROM \(unescaped: schema).\(unescaped: table)"),
                            ("INSERT", "INSERT INTO \(unescaped: schema).\(unescaped: table) VALUES (2)"),
                            ("UPDATE", "UPDATE \(unescaped: schema).\(unescaped: table) SET id = 3"),
                            ("DELETE", "DELETE FROM \(unescaped: schema).\(unescaped: table)"),
                            ("CREATE", "CREATE TABLE \(unescaped: schema).\(unescaped: table)_x (id int)"),
                            ("DROP", "DROP TABLE \(unescaped: schema).\(unescaped: table)"),
                        ]
                        for (verb, statement) in attempts {
                            let state = try await Self.sqlState(pool, statement)
                            #expect(state == "42501", "\(other.name) \(verb) on schema \(schema): \(state ?? "allowed")")
                        }
                    }
                }
                // Nothing of the attempts got through: the owner still sees exactly its one row.
                for (owner, pool) in owners {
                    let rows = try await pool.query("SELECT id FROM \(unescaped: owner.schema!).\(unescaped: table)")
                    #expect(try rows.decode(Int.self) == [1], "\(owner.name)'s table was changed")
                }
            } catch {
                for (owner, pool) in owners {
                    _ = try? await pool.execute("DROP TABLE IF EXISTS \(unescaped: owner.schema!).\(unescaped: table)")
                }
                throw error
            }
            for (owner, pool) in owners {
                try await pool.execute("DROP TABLE \(unescaped: owner.schema!).\(unescaped: table)")
            }
        }
    }

    @Test func serviceRolesCannotCreateOutsideTheirSchema() async throws {
        let services = try Self.roles().filter { $0.schema != nil }
        try await ServerGate.withShared {
            for role in services {
                let pool = try Self.pool(role)
                defer { pool.close() }
                let name = "t_" + String(UUID().uuidString.prefix(8)).lowercased()
                let attempts: [(String, PostgresQuery)] = [
                    ("CREATE SCHEMA", "CREATE SCHEMA \(unescaped: name)"),
                    ("CREATE in public", "CREATE TABLE public.\(unescaped: name) (id int)"),
                    ("CREATE TEMP", "CREATE TEMP TABLE \(unescaped: name) (id int)"),
                    ("CREATE ROLE", "CREATE ROLE \(unescaped: name)"),
                    ("CREATE DATABASE", "CREATE DATABASE \(unescaped: name)"),
                ]
                for (what, statement) in attempts {
                    let state = try await Self.sqlState(pool, statement)
                    #expect(state == "42501", "\(role.name) may \(what): \(state ?? "allowed")")
                }
            }
        }
    }

    @Test func noRoleIsPrivilegedOrAMemberOfAnother() async throws {
        let roles = try Self.roles()
        try await ServerGate.withShared {
            let pool = try Self.pool(roles.last!)
            defer { pool.close() }
            let rows = try await pool.query(
                """
                SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolcanlogin
                FROM pg_roles WHERE rolname LIKE 'hallmark%' ORDER BY rolname
                """
            ).decode((String, Bool, Bool, Bool, Bool, Bool, Bool).self)
            #expect(Set(rows.map(\.0)).isSuperset(of: roles.map(\.name)))
            for (name, superuser, createRole, createDB, replication, bypassRLS, login) in rows {
                #expect(
                    !superuser && !createRole && !createDB && !replication && !bypassRLS,
                    "\(name): superuser \(superuser), createrole \(createRole), createdb \(createDB)")
                #expect(login == roles.contains { $0.name == name }, "\(name) can log in but is no Hallmark role")
            }
            // A membership would hand one role another's rights.
            let memberships = try await pool.query(
                """
                SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
                WHERE r.rolname LIKE 'hallmark%'
                """)
            #expect(try memberships.first?.column(0, as: Int.self) == 0)
        }
    }

    @Test func eachURLLogsInAsItsOwnRole() async throws {
        try await ServerGate.withShared {
            for role in try Self.roles() {
                let pool = try Self.pool(role)
                defer { pool.close() }
                let user = try await pool.query("SELECT current_user::text").first?.column(0, as: String.self)
                #expect(user == role.name)
            }
        }
    }

    /// The service's URL with its passfile swapped for `query`.
    static func login(_ role: Role, query: [URLQueryItem]) throws -> PostgresConfiguration {
        var url = try #require(URLComponents(string: role.url))
        url.queryItems = query
        return try PostgresConfiguration(url: try #require(url.string), poolSize: 1, connectTimeout: .seconds(5))
    }

    @Test func aLoginWithoutTheRightPasswordIsRefused() async throws {
        let signer = try #require(try Self.roles().first)
        let wrong = "wrong-" + UUID().uuidString
        let attempts = [
            try Self.login(signer, query: [.init(name: "passfile", value: "/nonexistent"), .init(name: "password", value: "")]),
            try Self.login(
                signer, query: [.init(name: "passfile", value: "/nonexistent"), .init(name: "password", value: wrong)]),
        ]
        try await ServerGate.withShared {
            for configuration in attempts {
                let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
                defer { pool.close() }
                await #expect {
                    try await pool.query("SELECT 1")
                } throws: { error in
                    guard let error = error as? PostgresError else { return false }
                    return error.code == .connectionFailed && !error.description.contains(wrong)
                }
            }
            // The same role with its passfile gets in, so the refusals above are the password's.
            let pool = try Self.pool(signer)
            defer { pool.close() }
            #expect(try await pool.query("SELECT 1").count == 1)
        }
    }

    /// A role that owns its schema but may not create schemas still migrates it; a schema it
    /// does not have fails with a clear error.
    @Test func aServiceRoleMigratesItsOwnSchemaButCreatesNone() async throws {
        let signer = try #require(try Self.roles().first)
        try await ServerGate.withShared {
            let pool = try Self.pool(signer)
            defer { pool.close() }
            // No migrations: only the bookkeeping table every service has, so the real schema is
            // left as the signer itself would leave it.
            try await PostgresMigrations(schema: "signer", migrations: []).apply(on: pool, logger: TestDatabase.logger)
            let missing = TestDatabase.randomSchema()
            await #expect {
                try await PostgresMigrations(schema: missing, migrations: []).apply(on: pool, logger: TestDatabase.logger)
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.code == .migrationFailed && error.sqlState == "42501"
            }
        }
    }
}
