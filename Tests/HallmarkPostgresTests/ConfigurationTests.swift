import HallmarkCore
import HallmarkPostgres
import Testing

@Suite("PostgresConfiguration", .timeLimit(.minutes(2)))
struct ConfigurationTests {
    @Test func defaults() throws {
        let configuration = try PostgresConfiguration(url: "postgresql://hallmark@127.0.0.1:55432/hallmark")
        #expect(configuration.poolSize == 4)
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.applicationName == "hallmark")
    }

    @Test func urlParametersAreHonoured() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://hallmark@127.0.0.1:55432/hallmark?application_name=signer&connect_timeout=3")
        #expect(configuration.applicationName == "signer")
        #expect(configuration.connectTimeout == .seconds(3))
        let explicit = try PostgresConfiguration(
            url: "postgresql://hallmark@127.0.0.1/hallmark?application_name=signer", applicationName: "gateway")
        #expect(explicit.applicationName == "gateway")
    }

    @Test func passwordsAreRedacted() throws {
        for url in [
            "postgresql://hallmark:hunter2@db.internal:5432/hallmark",
            "host=db.internal user=hallmark password=hunter2 dbname=hallmark",
        ] {
            let configuration = try PostgresConfiguration(url: url)
            #expect(!configuration.description.contains("hunter2"))
            #expect(configuration.redactedConnectionString.contains("password=***"))
            #expect(configuration.redactedConnectionString.contains("host=db.internal"))
        }
    }

    /// `password` (also from a URL's `user:password@`) and `sslpassword` are masked everywhere
    /// the configuration is described.
    @Test func everySecretKeyIsRedacted() throws {
        let secrets = ["hunter2", "key-passphrase-77"]
        for url in [
            "postgresql://hallmark:hunter2@db.internal:5432/hallmark?sslpassword=key-passphrase-77&sslmode=require",
            "host=db.internal user=hallmark password=hunter2 sslpassword=key-passphrase-77 sslmode=require",
            "postgresql://hallmark@db.internal/hallmark?password=hunter2&sslpassword=key-passphrase-77&sslmode=require",
        ] {
            let configuration = try PostgresConfiguration(url: url)
            var dumped = ""
            dump(configuration, to: &dumped)
            for text in [
                configuration.description, configuration.redactedConnectionString,
                String(reflecting: configuration), dumped,
            ] {
                #expect(!secrets.contains { text.contains($0) }, "a secret in: \(text)")
            }
            let redacted = configuration.redactedConnectionString.split(separator: " ")
            #expect(redacted.contains("password=***"))
            #expect(redacted.contains("sslpassword=***"))
            #expect(redacted.contains("sslmode=require"))
            #expect(redacted.contains("host=db.internal"))
        }
    }

    @Test func aServicesOwnURLComesFirst() throws {
        let variables = ["HALLMARK_SIGNER_POSTGRES_URL", PostgresConfiguration.urlVariable]
        let both = try PostgresConfiguration.fromEnvironment(
            [
                "HALLMARK_SIGNER_POSTGRES_URL": "postgresql://hallmark_signer@127.0.0.1/hallmark",
                "HALLMARK_POSTGRES_URL": "postgresql://hallmark_test@127.0.0.1/hallmark",
            ], urlVariables: variables)
        #expect(both.redactedConnectionString.contains("user=hallmark_signer"))
        let shared = try PostgresConfiguration.fromEnvironment(
            [
                "HALLMARK_POSTGRES_URL": "postgresql://hallmark_test@127.0.0.1/hallmark"
            ], urlVariables: variables)
        #expect(shared.redactedConnectionString.contains("user=hallmark_test"))
    }

    /// A service's own pool size variable first, then the shared one, then the service's
    /// default (the authority's is larger than the runtime's).
    @Test func aServicesOwnPoolSizeComesFirstThenTheSharedOneThenItsDefault() throws {
        let own = PostgresConfiguration.Variable.poolSize(service: "authority", default: 16)
        #expect(own.name == "HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE")
        func size(_ environment: [String: String]) throws -> Int {
            try PostgresConfiguration.fromEnvironment(
                environment.merging(["HALLMARK_POSTGRES_URL": "postgresql:///x"]) { $1 }, poolSize: own
            ).poolSize
        }
        #expect(try size([:]) == 16)
        #expect(try size(["HALLMARK_POSTGRES_POOL_SIZE": "6"]) == 6)
        #expect(try size(["HALLMARK_POSTGRES_POOL_SIZE": "6", "HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE": "24"]) == 24)
        #expect(try size(["HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE": ""]) == 16)
        let error = #expect(throws: ConfigurationError.self) {
            try size(["HALLMARK_POSTGRES_POOL_SIZE": "6", "HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE": "0"])
        }
        #expect(error?.variable == "HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE")
        // Without a service's own setting, the shared variable and the runtime's default.
        #expect(PostgresConfiguration.Variable.poolSize(service: "signer").defaultValue == 4)
    }

    @Test func malformedURLIsRejectedWithoutEchoingIt() {
        #expect {
            try PostgresConfiguration(url: "postgresql://hallmark:hunter2@[bad")
        } throws: { error in
            let error = error as? PostgresError
            return error?.code == .invalidConfiguration && !"\(error!)".contains("hunter2")
        }
    }

    @Test func fromEnvironment() throws {
        let configuration = try PostgresConfiguration.fromEnvironment([
            "HALLMARK_POSTGRES_URL": "postgresql://hallmark@127.0.0.1/hallmark",
            "HALLMARK_POSTGRES_POOL_SIZE": "9",
        ])
        #expect(configuration.poolSize == 9)
        #expect(try PostgresConfiguration.fromEnvironment(["HALLMARK_POSTGRES_URL": "postgresql:///x"]).poolSize == 4)
        #expect(throws: ConfigurationError.self) { try PostgresConfiguration.fromEnvironment([:]) }
        #expect(throws: ConfigurationError.self) {
            try PostgresConfiguration.fromEnvironment([
                "HALLMARK_POSTGRES_URL": "postgresql:///x", "HALLMARK_POSTGRES_POOL_SIZE": "zero",
            ])
        }
    }
}

@Suite("Session settings", .timeLimit(.minutes(2)))
struct SessionSettingsTests {
    @Test func applicationNameAndSessionDefaultsReachTheServer() async throws {
        try await ServerGate.withShared {
            let configuration = try PostgresConfiguration(url: try TestDatabase.url, applicationName: "hallmark-tests")
            let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
            defer { pool.close() }
            let row = try #require(
                try await pool.query(
                    """
                    SELECT current_setting('application_name'), current_setting('TimeZone'),
                           current_setting('DateStyle'), current_setting('client_encoding')
                    """
                ).first)
            let (name, zone, style, encoding) = try row.decode((String, String, String, String).self)
            #expect(name == "hallmark-tests")
            #expect(zone == "UTC")
            #expect(style.hasPrefix("ISO"))
            #expect(encoding == "UTF8")
        }
    }
}
