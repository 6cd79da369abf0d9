import Foundation
import Logging
import libpq

// The blocking libpq calls behind PostgresConnection. Everything here runs on the connection's
// queue.
extension PostgresConnection {
    /// Session settings the text decoders rely on (ISO dates, UTC, hex bytea), and no JIT:
    /// Hallmark's statements are short, and the planner cannot see how many rows a batch
    /// unpacks from its packed parameters; its estimates then passed the JIT thresholds, and
    /// compiling took 350 of the 580 ms that the authority's replay statement spent on 25,000
    /// tokens.
    private static let sessionSetup = "SET DateStyle TO ISO; SET TimeZone TO 'UTC'; SET bytea_output TO hex; SET jit TO off"

    static func open(
        _ configuration: PostgresConfiguration, id: Int, queue: DispatchQueue, logger: Logger
    ) throws(PostgresError) -> PostgresConnection {
        // dbname is expanded as a URL/conninfo: it overrides the keywords before it (defaults)
        // and is overridden by those after it. TCP keepalives notice a vanished server within
        // about a minute instead of the kernel's two hours.
        let keywords = [
            "keepalives_idle", "keepalives_interval", "keepalives_count",
            "dbname", "application_name", "connect_timeout", "client_encoding",
        ]
        let values = [
            "30", "10", "3",
            configuration.connectionString, configuration.applicationName,
            String(configuration.connectTimeoutSeconds), "UTF8",
        ]
        let opened = withCStringArray(keywords) { k in withCStringArray(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let handle = opened else {
            throw PostgresError(code: .connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            // libpq's own account: the address and, for a refused login, the server's reason
            // (no statement has run, so nothing in it comes from bound values; libpq never
            // repeats a password).
            let message = firstLine(PQerrorMessage(handle)) ?? "connection failed"
            PQfinish(handle)
            throw PostgresError(code: .connectionFailed, message: message)
        }
        let notices = NoticeSink(logger: logger)
        PQsetNoticeReceiver(handle, noticeReceiver, Unmanaged.passUnretained(notices).toOpaque())
        let connection = PostgresConnection(
            id: id, connection: handle, queue: queue, notices: notices,
            cancelsOnTaskCancellation: configuration.cancelsStatementsOnTaskCancellation, logger: logger)
        do throws(PostgresError) {
            _ = try connection.consume(PQexec(handle, sessionSetup))
        } catch {
            throw PostgresError(code: .connectionFailed, message: error.message, sqlState: error.sqlState)
        }
        return connection
    }

    /// Runs one statement; `prepares: false` never prepares it (``PostgresQuery/plannedEachRun()``).
    func executeParams(_ sql: String, _ binds: [PostgresBind], prepares: Bool = true) throws(PostgresError) -> PostgresRows {
        try ensureConnected()
        guard binds.count <= Int(UInt16.max) else {
            throw PostgresError(code: .invalidQuery, message: "too many bind parameters (\(binds.count))")
        }
        var values: [UnsafeMutablePointer<CChar>?] = []
        values.reserveCapacity(binds.count)
        defer { values.forEach { free($0) } }
        var lengths = [Int32](repeating: 0, count: binds.count)
        var formats = [Int32](repeating: 0, count: binds.count)
        for (index, bind) in binds.enumerated() {
            switch bind.value {
            case .null:
                values.append(nil)
            case .text(let text):
                // Text parameters are NUL-terminated, so a NUL would silently truncate the value.
                guard !text.utf8.contains(0) else {
                    throw PostgresError(code: .invalidQuery, message: "text parameter $\(index + 1) contains a NUL character")
                }
                values.append(strdup(text))
            case .binary(let bytes):
                let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress {
                        UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count)
                    }
                }
                values.append(buffer)
                lengths[index] = Int32(bytes.count)
                formats[index] = 1
            }
        }
        let types = binds.map { Oid($0.type.rawValue) }
        // Unprepared, the statement is planned with its parameters' values at every run.
        let plan = prepares ? statements.plan(sql, types: types) : .unprepared
        if case .prepare(let name) = plan {
            _ = try consume(PQprepare(connection, name, sql, Int32(binds.count), types))
            statements.prepared(sql, types: types, as: name)
        }
        let result = values.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { valuePointers in
            switch plan {
            case .unprepared:
                PQexecParams(connection, sql, Int32(binds.count), types, valuePointers.baseAddress, lengths, formats, 0)
            case .prepare(let name), .run(let name):
                PQexecPrepared(connection, name, Int32(binds.count), valuePointers.baseAddress, lengths, formats, 0)
            }
        }
        do {
            return try consume(result)
        } catch {
            // 26000: no such prepared statement; 0A000: its cached plan's result type changed.
            if case .run(let name) = plan, ["26000", "0A000"].contains(error.sqlState ?? "") { statements.forget(name) }
            throw error
        }
    }

    /// Turns a result into rows or an error, and frees it.
    func consume(_ result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let result else { throw failure(nil) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.rows(from: result)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            markBroken()  // the connection is now stuck in COPY mode
            throw PostgresError(code: .queryFailed, message: "COPY is not supported")
        default:
            throw failure(result)
        }
    }

    /// A failed call: connection-class when libpq lost the connection or the server said it
    /// is going away (SQLSTATE class 08, 57P01–57P03); the connection is then marked broken.
    ///
    /// A server error becomes its SQLSTATE and constraint name only: its message, DETAIL, HINT
    /// and CONTEXT can quote bound values and are never read. Nor is libpq's message when there
    /// is no SQLSTATE: it can carry a server message that arrived on its own (a FATAL before
    /// the server closed the connection).
    private func failure(_ result: OpaquePointer?) -> PostgresError {
        func field(_ code: UInt8) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field(UInt8(ascii: "C")).flatMap(Self.validSQLState)
        let serverGoingAway = sqlState.map { $0.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains($0) } ?? false
        let lost = PQstatus(connection) != CONNECTION_OK || serverGoingAway || result == nil
        if lost { markBroken() }
        let code: PostgresError.Code = lost ? .connectionLost : .queryFailed
        if let sqlState {
            return .server(code, sqlState: sqlState, constraint: field(UInt8(ascii: "n")))
        }
        return PostgresError(
            code: code,
            message: lost
                ? "the connection to the server was lost"
                : "the statement failed without a SQLSTATE")
    }

    /// The five upper-case letters and digits of a SQLSTATE, or nil.
    static func validSQLState(_ text: String) -> String? {
        text.utf8.count == 5 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
            ? text : nil
    }

    private static func rows(from result: OpaquePointer) -> PostgresRows {
        let fieldCount = PQnfields(result), rowCount = PQntuples(result)
        let columns = (0..<fieldCount).map { column in
            PostgresColumn(
                name: String(cString: PQfname(result, column)),
                dataType: PostgresDataType(UInt32(PQftype(result, column))))
        }
        var cells: [[UInt8]?] = []
        cells.reserveCapacity(Int(rowCount) * Int(fieldCount))
        for row in 0..<rowCount {
            for column in 0..<fieldCount {
                if PQgetisnull(result, row, column) != 0 {
                    cells.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    cells.append([UInt8](UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)))
                }
            }
        }
        let tag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PostgresRows(columns: columns, rowCount: Int(rowCount), cells: cells, commandTag: tag, affectedRows: affected)
    }

    static func firstLine(_ message: UnsafePointer<CChar>?) -> String? {
        guard let message else { return nil }
        let line = String(cString: message).split(separator: "\n").first.map(String.init)?
            .trimmingCharacters(in: .whitespaces)
        return line?.isEmpty == false ? line : nil
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
