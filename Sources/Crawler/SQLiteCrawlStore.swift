import Foundation

/// The crawl's embedded store (SQLite): the frontier, the seen set and the results, in one table
/// keyed by canonical URL. In memory by default (nothing on disk); in a file (WAL mode) when
/// named, so a crawl killed at any moment resumes where it stopped: a page's completion and the
/// links it found commit in one transaction, and pages claimed but not completed are queued again
/// when the next run starts (`recoverClaims`). The options the crawl was started with are kept
/// beside it (`adopt`). One process uses a file at a time (a second one is refused: see
/// `StoreFileLock`); politeness stays in that process.
// @unchecked: the SQLite connection is opened NOMUTEX and nothing here locks it: one caller at a
// time (while a crawl runs, its `CrawlCoordinator` actor makes every call).
public final class SQLiteCrawlStore: CrawlStore, @unchecked Sendable {
    private let database: SQLiteDatabase
    /// The file, or nil in memory.
    public let path: String?

    /// Opens the store at `path` (created if missing), or in memory when nil. Throws a
    /// `CrawlError` naming the file when another process has it open.
    public init(path: String?) throws {
        self.path = path
        database = try SQLiteDatabase(path: path)
        // Temporary tables and sorts stay in memory even with a file store.
        try database.execute("PRAGMA temp_store=MEMORY")
        if let path {
            guard try database.text("PRAGMA journal_mode=WAL")?.lowercased() == "wal" else {
                throw CrawlError.store("\(path): cannot switch to WAL mode")
            }
            // WAL with NORMAL survives a killed process (only a power loss can lose the last commits).
            try database.execute("PRAGMA synchronous=NORMAL")
        }
        try database.execute("""
            CREATE TABLE IF NOT EXISTS pages(
              id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL, depth INTEGER NOT NULL,
              state INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL DEFAULT 0,
              status INTEGER, bytes INTEGER NOT NULL DEFAULT 0, digest TEXT, error TEXT, finished_at REAL);
            CREATE INDEX IF NOT EXISTS pages_queue ON pages(state, id);
            CREATE INDEX IF NOT EXISTS pages_due ON pages(state, not_before);
            CREATE TABLE IF NOT EXISTS options(name TEXT PRIMARY KEY, value TEXT NOT NULL);
            """)
    }

    public func adopt(_ options: CrawlOptions, replacing: Bool) throws {
        try database.transaction {
            let stored = try database.prepared("SELECT name, value FROM options").rows([]) { ($0.text(0) ?? "", $0.text(1) ?? "") }
            guard try options.check(against: Dictionary(stored, uniquingKeysWith: { first, _ in first }), replacing: replacing,
                                    store: path ?? "the store") else { return }
            try database.execute("DELETE FROM options")
            let insert = try database.prepared("INSERT INTO options(name, value) VALUES (?, ?)")
            for (name, value) in options.values { try insert.run([.text(name), .text(value)]) }
        }
    }

    /// Queues again the URLs a killed run had claimed but not completed; returns how many.
    @discardableResult
    public func recoverClaims() throws -> Int {
        try database.prepared("UPDATE pages SET state = 0 WHERE state = 1").run([])
    }

    /// The journal mode SQLite reports ("wal" for a file store, "memory" in memory).
    public func journalMode() throws -> String { try database.text("PRAGMA journal_mode") ?? "" }

    /// Adds URLs not seen before; returns how many were new.
    @discardableResult
    public func enqueue(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int {
        try database.transaction { try insert(urls) }
    }

    private func insert(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int {
        let statement = try database.prepared("INSERT OR IGNORE INTO pages(url, host, depth) VALUES (?, ?, ?)")
        var added = 0
        for entry in urls { added += try statement.run([.text(entry.url), .text(entry.host), .integer(entry.depth)]) }
        return added
    }

    /// How many of the oldest due URLs a claim looks at for one whose host is free. Bounded, so
    /// a claim costs the same however long the queue; URLs of busy hosts beyond it wait their turn.
    static let claimWindow = 256

    /// The oldest queued URL due by `now` whose host is not in `busyHosts`, marked claimed.
    /// One transaction holding the write lock from the start: the URL chosen is still queued
    /// when it is marked claimed, whatever else writes to the file meanwhile.
    public func claim(now: Double, busyHosts: Set<String>, perHost: Int = 1, delay: Double = 0) throws -> Entry? {
        try database.transaction {
            let select = try database.prepared("SELECT id, url, host, depth, attempts FROM pages INDEXED BY pages_queue WHERE state = 0 AND not_before <= ? ORDER BY id LIMIT ?")
            let found = try select.firstRow([.real(now), .integer(Self.claimWindow)]) { row -> Entry? in
                guard let host = row.text(2), !busyHosts.contains(host) else { return nil }
                return Entry(id: row.integer(0), url: row.text(1) ?? "", host: host, depth: row.integer(3), attempts: row.integer(4))
            }
            guard let entry = found else { return nil }
            try database.prepared("UPDATE pages SET state = 1 WHERE id = ?").run([.integer(entry.id)])
            return entry
        }
    }

    /// Records a final outcome and queues the links found, in one transaction that runs `output`
    /// last; returns how many links were new (never nil: this process holds every claim).
    @discardableResult
    public func complete(_ entry: Entry, state: State, status: Int?, bytes: Int, digest: String?, error: String?,
                         links: [(url: String, host: String, depth: Int)], now: Double, output: () throws -> Void) throws -> Int? {
        try database.transaction {
            let added = try insert(links)
            try database.prepared("UPDATE pages SET state = ?, status = ?, bytes = ?, digest = ?, error = ?, finished_at = ?, attempts = attempts + 1 WHERE id = ?")
                .run([.integer(state.rawValue), status.map { .integer($0) } ?? .null, .integer(bytes),
                      digest.map { .text($0) } ?? .null, error.map { .text($0) } ?? .null, .real(now), .integer(entry.id)])
            try output()
            return added
        }
    }

    /// Puts a claimed URL back in the queue, due at `notBefore`, one attempt more.
    public func retry(_ entry: Entry, notBefore: Double, error: String) throws {
        try database.prepared("UPDATE pages SET state = 0, attempts = attempts + 1, not_before = ?, error = ? WHERE id = ?")
            .run([.real(notBefore), .text(error), .integer(entry.id)])
    }

    public func requeue(_ entry: Entry, notBefore: Double, error: String) throws {
        try database.prepared("UPDATE pages SET state = 0, not_before = ?, error = ? WHERE id = ?")
            .run([.real(notBefore), .text(error), .integer(entry.id)])
    }

    /// How many URLs are in each state.
    public func counts() throws -> [State: Int] {
        var result: [State: Int] = [:]
        for (state, count) in try database.prepared("SELECT state, count(*) FROM pages GROUP BY state").rows([], { ($0.integer(0), $0.integer(1)) }) {
            if let known = State(rawValue: state) { result[known] = count }
        }
        return result
    }

    /// Bytes of every page fetched so far (this run and earlier ones).
    public func fetchedBytes() throws -> Int {
        try database.prepared("SELECT coalesce(sum(bytes), 0) FROM pages WHERE state IN (2, 3)").rows([], { $0.integer(0) }).first ?? 0
    }

    public func pagesClaimedOrDone() throws -> Int {
        try database.prepared("SELECT count(*) FROM pages WHERE state IN \(State.countedAsPagesSQL)").rows([], { $0.integer(0) }).first ?? 0
    }

    /// When the next queued URL is due, if any is queued (no claim is left to expire here).
    public func earliestDue() throws -> Double? {
        try database.prepared("SELECT min(not_before) FROM pages WHERE state = 0").rows([], { $0.isNull(0) ? nil : $0.real(0) }).first ?? nil
    }

    /// The URLs in `state`, in the order they were first seen.
    public func urls(in state: State) throws -> [String] {
        try database.prepared("SELECT url FROM pages WHERE state = ? ORDER BY id").rows([.integer(state.rawValue)]) { $0.text(0) ?? "" }
    }
}
