import Foundation

/// A crawl store in PostgreSQL that many workers (processes on many machines) share: one
/// frontier, one seen set (a unique canonical URL), one set of results. A claim is a lease: the
/// URL is the worker's until `lease` seconds pass without renewal (`renewLeases`, which the
/// coordinator calls while it holds URLs), then it goes back to the queue, so a crashed
/// worker's URLs are fetched by the others. An outcome counts, and its page is written to the
/// outputs, only from the claim that still holds the URL, so each URL is completed and written
/// once. Per-host politeness holds across workers: a
/// claim locks the host's row (`FOR UPDATE SKIP LOCKED`), counts the host's claims and checks
/// its next start time in the same transaction. Times are the server's clock, so workers'
/// clocks need not agree. The schema is created by the first worker (under an advisory lock,
/// so workers starting together do not race).
// @unchecked: the libpq connection and `lastRecovery` have no lock: one caller at a time
// (while a crawl runs, its `CrawlCoordinator` actor makes every call; other workers have their own).
public final class PostgresCrawlStore: CrawlStore, @unchecked Sendable {
    private let connection: PostgresConnection
    /// Who holds a claim: host name, process id and a random part.
    public let worker: String
    /// Seconds a claim lasts without renewal.
    public let lease: Double
    private var lastRecovery: Double = 0

    /// The server's clock in seconds since 1970, in SQL.
    static let clock = "extract(epoch from clock_timestamp())::float8"
    /// Serializes schema creation and option checks between workers (pg_advisory_xact_lock).
    private static let setupLock = "7217305571"

    /// Connects to `url` (`postgres://user@host:port/database`) and creates the schema if the
    /// database has none yet. Throws a `CrawlError` naming the server (password hidden).
    public init(url: String, lease: Double = 60) throws {
        connection = try PostgresConnection(url: url)
        self.lease = lease
        worker = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8))"
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.setupLock))")
            for statement in Self.schema { try connection.execute(statement) }
        }
    }

    public var isShared: Bool { true }
    public var leaseRenewalInterval: Double? { lease / 3 }

    public func adopt(_ options: CrawlOptions, replacing: Bool) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.setupLock))")
            let stored = try connection.execute("SELECT name, value FROM crawl_options").rows.map { ($0[0] ?? "", $0[1] ?? "") }
            guard try options.check(against: Dictionary(stored, uniquingKeysWith: { first, _ in first }), replacing: replacing,
                                    store: connection.displayName) else { return }
            try connection.execute("DELETE FROM crawl_options")
            try connection.execute("INSERT INTO crawl_options(name, value) SELECT * FROM unnest($1::text[], $2::text[])",
                                   [PostgresConnection.arrayLiteral(options.values.map(\.name)),
                                    PostgresConnection.arrayLiteral(options.values.map(\.value))])
        }
    }

    /// Queues again the URLs whose lease ran out (their worker died or lost the server). Rows
    /// another worker has locked are left for its next round: workers recovering at the same
    /// time never wait for each other.
    @discardableResult
    public func recoverClaims() throws -> Int {
        lastRecovery = Date().timeIntervalSince1970
        return try connection.execute("""
            UPDATE crawl_pages SET state = 0 WHERE id IN (
              SELECT id FROM crawl_pages WHERE state = 1 AND lease_until < \(Self.clock) FOR UPDATE SKIP LOCKED)
            """).changed
    }

    @discardableResult
    public func enqueue(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int {
        try connection.transaction { try insert(urls) }
    }

    /// Inserts in URL order, so two workers adding overlapping links wait for each other in the
    /// same order and never deadlock.
    private func insert(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int {
        guard !urls.isEmpty else { return 0 }
        let sorted = urls.sorted { $0.url < $1.url }
        try connection.execute("INSERT INTO crawl_hosts(host) SELECT DISTINCT h FROM unnest($1::text[]) h ORDER BY h ON CONFLICT DO NOTHING",
                               [PostgresConnection.arrayLiteral(sorted.map(\.host))])
        return try connection.execute("""
            INSERT INTO crawl_pages(url, host, depth) SELECT * FROM unnest($1::text[], $2::text[], $3::int[])
            ON CONFLICT (url) DO NOTHING
            """, [PostgresConnection.arrayLiteral(sorted.map(\.url)), PostgresConnection.arrayLiteral(sorted.map(\.host)),
                  PostgresConnection.arrayLiteral(sorted.map { String($0.depth) })]).changed
    }

    /// How many of the oldest due URLs a claim looks at for one whose host is free.
    static let claimWindow = 256

    public func claim(now: Double, busyHosts: Set<String>, perHost: Int, delay: Double) throws -> Entry? {
        if now - lastRecovery > min(1, lease / 4) { try recoverClaims() }
        // One round trip: crawl_claim (PostgresCrawlStore+Schema) locks a free host, counts its
        // claims again under the lock, and claims its oldest due URL.
        let rows = try connection.execute("SELECT * FROM crawl_claim($1::text[], $2, $3, $4, $5, $6)",
                                          [PostgresConnection.arrayLiteral(busyHosts.sorted()), String(perHost), String(delay), worker,
                                           String(lease), String(Self.claimWindow)]).rows
        guard let row = rows.first else { return nil }
        return Entry(id: Int(row[0] ?? "") ?? 0, url: row[1] ?? "", host: row[2] ?? "", depth: Int(row[3] ?? "") ?? 0,
                     attempts: Int(row[4] ?? "") ?? 0, claim: Int(row[5] ?? "") ?? 0)
    }

    /// First locks the URL's row if this claim still holds it: until the commit, no other worker
    /// can recover and claim it again (they skip locked rows), so `output` runs only for the
    /// claim whose outcome is recorded. `output` runs last, after the statements that may
    /// deadlock and be run again by `transaction`; a commit failing after it is not run again
    /// (that would write the page twice): it throws, like a kill there, and the URL comes back.
    @discardableResult
    public func complete(_ entry: Entry, state: State, status: Int?, bytes: Int, digest: String?, error: String?,
                         links: [(url: String, host: String, depth: Int)], now: Double, output: () throws -> Void) throws -> Int? {
        let claim = [String(entry.id), String(entry.claim)]
        var written = false
        return try connection.transaction {
            guard !written else { throw CrawlError.store("\(connection.displayName): \(entry.url) was written but its completion failed") }
            let held = try connection.execute("SELECT 1 FROM crawl_pages WHERE id = $1 AND state = 1 AND claims = $2 FOR UPDATE", claim)
            guard !held.rows.isEmpty else { return nil }
            let added = try insert(links)
            try connection.execute("""
                UPDATE crawl_pages SET state = $3, status = $4, bytes = $5, digest = $6, error = $7, finished_at = \(Self.clock),
                  attempts = attempts + 1, completions = completions + 1, lease_until = NULL
                WHERE id = $1 AND state = 1 AND claims = $2
                """, claim + [String(state.rawValue), status.map(String.init), String(bytes), digest, error])
            try output()
            written = true
            return added
        }
    }

    public func retry(_ entry: Entry, notBefore: Double, error: String) throws {
        try putBack(entry, notBefore: notBefore, error: error, attempts: "attempts + 1")
    }

    public func requeue(_ entry: Entry, notBefore: Double, error: String) throws {
        try putBack(entry, notBefore: notBefore, error: error, attempts: "attempts")
    }

    /// Queues a claimed URL again (only from the claim that holds it), due `notBefore` (a local
    /// time, turned into a wait on the server's clock), its attempts set to `attempts` (SQL).
    private func putBack(_ entry: Entry, notBefore: Double, error: String, attempts: String) throws {
        let wait = max(0, notBefore - Date().timeIntervalSince1970)
        try connection.execute("""
            UPDATE crawl_pages SET state = 0, attempts = \(attempts), not_before = \(Self.clock) + $3, error = $4, lease_until = NULL
            WHERE id = $1 AND state = 1 AND claims = $2
            """, [String(entry.id), String(entry.claim), String(wait), error])
    }

    public func renewLeases() throws {
        try connection.execute("UPDATE crawl_pages SET lease_until = \(Self.clock) + $2 WHERE state = 1 AND worker = $1",
                               [worker, String(lease)])
    }

    public func counts() throws -> [State: Int] {
        var result: [State: Int] = [:]
        for row in try connection.execute("SELECT state, count(*) FROM crawl_pages GROUP BY state").rows {
            if let state = Int(row[0] ?? "").flatMap(State.init(rawValue:)) { result[state] = Int(row[1] ?? "") ?? 0 }
        }
        return result
    }

    public func fetchedBytes() throws -> Int {
        let text = try connection.execute("SELECT coalesce(sum(bytes), 0) FROM crawl_pages WHERE state IN (2, 3)").rows.first?.first ?? nil
        return Int(text ?? "") ?? 0
    }

    public func pagesClaimedOrDone() throws -> Int {
        let text = try connection.execute("SELECT count(*) FROM crawl_pages WHERE state IN \(State.countedAsPagesSQL)").rows.first?.first ?? nil
        return Int(text ?? "") ?? 0
    }

    /// The next queued URL's due time, or when another worker's claim would expire: a worker
    /// waits for those rather than finish, since the claim may add links or come back.
    public func earliestDue() throws -> Double? {
        let row = try connection.execute("""
            SELECT least((SELECT min(not_before) FROM crawl_pages WHERE state = 0),
                         (SELECT min(lease_until) FROM crawl_pages WHERE state = 1)) - \(Self.clock)
            """).rows.first
        guard let text = row?.first ?? nil, let seconds = Double(text) else { return nil }
        return Date().timeIntervalSince1970 + seconds
    }

    public func urls(in state: State) throws -> [String] {
        try connection.execute("SELECT url FROM crawl_pages WHERE state = $1 ORDER BY id", [String(state.rawValue)]).rows.map { $0[0] ?? "" }
    }

    public func hostSending(_ host: String, delay: Double) throws {
        try connection.execute("""
            UPDATE crawl_hosts SET next_start = greatest(next_start, \(Self.clock) + greatest($2::float8, crawl_delay)) WHERE host = $1
            """, [host, String(delay)])
    }

    public func hostCrawlDelay(_ host: String, seconds: Double) throws {
        try connection.execute("""
            UPDATE crawl_hosts SET crawl_delay = $2, next_start = greatest(next_start, \(Self.clock) + $2::float8) WHERE host = $1
            """, [host, String(seconds)])
    }

    public func hostPause(_ host: String, until: Double) throws {
        let wait = max(0, until - Date().timeIntervalSince1970)
        try connection.execute("UPDATE crawl_hosts SET paused_until = greatest(paused_until, \(Self.clock) + $2::float8) WHERE host = $1",
                               [host, String(wait)])
    }
}
