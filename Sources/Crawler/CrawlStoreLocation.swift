import Foundation

/// Where a crawl keeps its store, as `relayfetch crawl --store` names it: nothing (SQLite in
/// memory), a file (SQLite, resumable), or a `postgres://` / `postgresql://` URL (PostgreSQL,
/// shared by workers on many machines).
public enum CrawlStoreLocation: Sendable, Equatable {
    case memory
    case sqliteFile(String)
    case postgres(url: String)

    public init(_ argument: String?) {
        guard let argument else {
            self = .memory
            return
        }
        let lowered = argument.lowercased()
        self = lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? .postgres(url: argument) : .sqliteFile(argument)
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
