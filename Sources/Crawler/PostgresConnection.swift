import Foundation
internal import CPostgreSQL

/// One libpq connection, the only owner of its `PGconn` (finished in `deinit`). Not
/// thread-safe: one owner (a crawl store, behind the coordinator actor) uses it at a time.
/// Statements take text parameters and return text rows; every failure is a `CrawlError`
/// naming the server and PostgreSQL's message, with the connection string's passwords taken out.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// Prepared statements of this session, by their SQL.
    private var statementNames: [String: String] = [:]
    private let connectionString: PostgresConnectionString
    /// The connection string with its passwords replaced by "***", for messages.
    var displayName: String { connectionString.displayName }

    /// What a statement returned: its rows (text, nil for NULL) and how many rows it changed.
    struct Result {
        var rows: [[String?]] = []
        var changed = 0
    }

    /// A failure the server reported, with its SQLSTATE code (e.g. "40P01", a deadlock).
    struct ServerError: Error {
        let state: String
        let message: String
    }

    /// Connects to `url` (a `postgres://` or `postgresql://` URI, or a libpq conninfo string),
    /// every libpq parameter in it honoured (`sslmode=verify-full`...).
    init(url: String) throws {
        connectionString = PostgresConnectionString(url)
        guard let connection = PQconnectdb(url) else { throw connectionString.failure("cannot connect to", "out of memory") }
        handle = connection
        // Once `handle` is set, a throw here still runs deinit, which finishes the connection.
        guard PQstatus(handle) == CONNECTION_OK else {
            throw connectionString.failure("cannot connect to", Self.trimmed(PQerrorMessage(handle)))
        }
        rf_pq_silence_notices(handle)
    }

    deinit { PQfinish(handle) }

    /// Runs one statement with `parameters` bound to $1, $2, ... (text; nil for NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws -> Result {
        do {
            return try run(sql, parameters, prepared: true)
        } catch let error as ServerError {
            throw connectionString.failure("", "\(error.message) (in: \(sql.prefix(60)))")
        }
    }

    /// Runs `body` in one transaction, committed if it returns and rolled back if it throws. A
    /// deadlock or serialization failure (which PostgreSQL resolves by failing one side) runs
    /// `body` again, up to three times.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try run("BEGIN", [], prepared: false)
                let result = try body()
                try run("COMMIT", [], prepared: false)
                return result
            } catch let error as ServerError {
                _ = try? run("ROLLBACK", [], prepared: false)
                if ["40P01", "40001"].contains(error.state) && attempt < 3 { continue }
                throw connectionString.failure("", error.message)
            } catch {
                _ = try? run("ROLLBACK", [], prepared: false)
                throw error
            }
        }
    }

    /// Like `execute`, but a server failure stays a `ServerError` so `transaction` can retry it.
    /// A `prepared` statement is parsed and planned once per connection, not on every call (not
    /// for BEGIN, COMMIT and ROLLBACK: nothing can be prepared in a failed transaction).
    @discardableResult
    private func run(_ sql: String, _ parameters: [String?], prepared: Bool) throws -> Result {
        if PQstatus(handle) != CONNECTION_OK {
            PQreset(handle)
            statementNames.removeAll()  // a new session has none of them
        }
        let copies = parameters.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let values = copies.map { UnsafePointer($0) }
        let name = prepared ? try statementName(for: sql) : nil
        let raw = values.withUnsafeBufferPointer { buffer in
            if let name { return PQexecPrepared(handle, name, Int32(parameters.count), buffer.baseAddress, nil, nil, 0) }
            return PQexecParams(handle, sql, 0, nil, nil, nil, nil, 0)
        }
        return try collect(raw)
    }

    /// The name `sql` is prepared under on this connection, preparing it the first time.
    private func statementName(for sql: String) throws -> String {
        if let name = statementNames[sql] { return name }
        let name = "relayfetch_\(statementNames.count + 1)"
        _ = try collect(PQprepare(handle, name, sql, 0, nil))
        statementNames[sql] = name
        return name
    }

    /// The rows of a result (cleared here), or its failure as a `ServerError`.
    private func collect(_ raw: OpaquePointer?) throws -> Result {
        guard let raw else { throw ServerError(state: "", message: Self.trimmed(PQerrorMessage(handle))) }
        defer { PQclear(raw) }
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            var result = Result(changed: Int(String(cString: PQcmdTuples(raw))) ?? 0)
            let columns = PQnfields(raw)
            for row in 0..<PQntuples(raw) {
                result.rows.append((0..<columns).map { column in
                    PQgetisnull(raw, row, column) == 1 ? nil : String(cString: PQgetvalue(raw, row, column))
                })
            }
            return result
        default:
            let state = PQresultErrorField(raw, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            throw ServerError(state: state, message: Self.trimmed(PQresultErrorMessage(raw)))
        }
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown error"
    }

    /// A PostgreSQL array literal (`{"a","b"}`) of `values`, for one text parameter.
    static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
