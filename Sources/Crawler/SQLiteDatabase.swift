import Foundation
internal import CSQLite

/// One SQLite connection, the only owner of its `sqlite3` handle (closed in `deinit`) and, for a
/// file, of the lock that keeps other processes off it. Not thread-safe: one owner (the crawl
/// coordinator) uses it at a time. Every return code is mapped to a `CrawlError` naming the
/// statement and SQLite's message.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// Released after `deinit` closed the connection (stored properties go after its body).
    private let lock: StoreFileLock?

    /// Opens (creating if needed) the database at `path`, locked for this process, or a private
    /// in-memory one when nil: nothing touches the disk then.
    init(path: String?) throws {
        // SQLite reads ":memory:" and "file:..." as special names; the lock and the database
        // must be the same file, so a path is always a path.
        let file = path.map { $0 == ":memory:" || $0.hasPrefix("file:") ? "./" + $0 : $0 }
        // Locked before SQLite reads the file: a second process never touches it.
        lock = try file.map(StoreFileLock.init(path:))
        let name = file ?? ":memory:"
        let status = sqlite3_open_v2(name, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            handle = nil
            throw CrawlError.store("cannot open \(path ?? "the in-memory database"): \(message)")
        }
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit {
        statements.removeAll()  // statements are finalized before the connection closes
        sqlite3_close(handle)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error \(status)"
            sqlite3_free(message)
            throw CrawlError.store("\(text) (in: \(sql.prefix(60)))")
        }
    }

    /// A single-row, single-column text result (e.g. a pragma's answer).
    func text(_ sql: String) throws -> String? {
        let statement = try prepared(sql)
        return try statement.rows([]) { $0.text(0) }.first ?? nil
    }

    /// A cached prepared statement for `sql`.
    func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var raw: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &raw, nil) == SQLITE_OK, let raw else {
            throw CrawlError.store("\(errorMessage) (in: \(sql.prefix(60)))")
        }
        let statement = SQLiteStatement(raw, database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` in one transaction, holding the write lock from its start (BEGIN IMMEDIATE:
    /// what it reads stays true until it commits): committed if it returns, rolled back if it
    /// throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var errorMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int)
    case real(Double)
    case text(String)
    case null
}

/// A prepared statement, owned by its database's cache (finalized in `deinit`).
final class SQLiteStatement {
    private let raw: OpaquePointer
    private unowned let database: SQLiteDatabase
    private let sql: String

    init(_ raw: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.raw = raw
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    /// Runs the statement with `values`; returns the number of rows it changed.
    @discardableResult
    func run(_ values: [SQLiteValue]) throws -> Int {
        _ = try rows(values) { _ in () }
        return Int(sqlite3_changes(sqlite3_db_handle(raw)))
    }

    /// Runs the statement with `values`, mapping each result row with `row`.
    func rows<T>(_ values: [SQLiteValue], _ row: (SQLiteRow) throws -> T) throws -> [T] {
        defer { sqlite3_reset(raw) }
        try bind(values)
        var result: [T] = []
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW: result.append(try row(SQLiteRow(raw: raw)))
            case SQLITE_DONE: return result
            default: throw failure()
            }
        }
    }

    /// Runs the statement with `values` until `row` maps a result row to a value, and returns
    /// that value (nil when no row does): the rows after it are never produced.
    func firstRow<T>(_ values: [SQLiteValue], _ row: (SQLiteRow) throws -> T?) throws -> T? {
        defer { sqlite3_reset(raw) }
        try bind(values)
        while true {
            switch sqlite3_step(raw) {
            case SQLITE_ROW: if let value = try row(SQLiteRow(raw: raw)) { return value }
            case SQLITE_DONE: return nil
            default: throw failure()
            }
        }
    }

    private func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(raw, index, Int64(number))
            case .real(let number): status = sqlite3_bind_double(raw, index, number)
            case .text(let text): status = rf_sqlite3_bind_text(raw, index, text, -1)
            case .null: status = sqlite3_bind_null(raw, index)
            }
            guard status == SQLITE_OK else { throw failure() }
        }
    }

    private func failure() -> CrawlError { CrawlError.store("\(database.errorMessage) (in: \(sql.prefix(60)))") }
}

/// The current row of a stepping statement; valid only inside the `rows` callback.
struct SQLiteRow {
    fileprivate let raw: OpaquePointer

    func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(raw, column)) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }
    func text(_ column: Int32) -> String? { sqlite3_column_text(raw, column).map { String(cString: $0) } }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
}
