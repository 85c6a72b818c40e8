import Foundation

/// Where a crawl keeps its store, as `relayfetch crawl --store` names it: nothing (SQLite in
/// memory), a file (SQLite, resumable), or a PostgreSQL connection string (shared by workers on
/// many machines): a `postgres://` / `postgresql://` URL, or `key=value` pairs libpq reads
/// (`host=db.internal dbname=crawl sslmode=verify-full`), passed to libpq as given.
public enum CrawlStoreLocation: Sendable, Equatable {
    case memory
    case sqliteFile(String)
    case postgres(url: String)

    public init(_ argument: String?) {
        guard let argument else {
            self = .memory
            return
        }
        self = PostgresConnectionString.isConnectionString(argument) ? .postgres(url: argument) : .sqliteFile(argument)
    }

    /// Whether workers may share it (PostgreSQL), so claims are leases.
    public var isShared: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// Opens (creating if needed) the store; a PostgreSQL store's claims last `lease` seconds
    /// without renewal. Throws a `CrawlError` naming the file or server.
    public func open(lease: Double = 60) throws -> any CrawlStore {
        switch self {
        case .memory: return try SQLiteCrawlStore(path: nil)
        case .sqliteFile(let path): return try SQLiteCrawlStore(path: path)
        case .postgres(let url): return try PostgresCrawlStore(url: url, lease: lease)
        }
    }
}
