import Foundation

/// The PostgreSQL server of the multi-worker crawl tests (scripts/test-postgres.sh), found
/// through the servers folder like the others.
extension TestServers {
    /// The URL of the test database (role and database `relayfetch`, TCP on 127.0.0.40:5432).
    public static func postgresURL() throws -> String {
        let file = directory.appendingPathComponent("postgres/url")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw TestServerError(description: "no \(file.path): PostgreSQL is not running (scripts/test-servers.sh start postgres)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs one SQL command with psql against `url`; returns its unaligned output.
    @discardableResult
    public static func psql(_ sql: String, url: String? = nil) throws -> String {
        let result = try run(["/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-d", try url ?? postgresURL(), "-c", sql])
        guard result.status == 0 else { throw TestServerError(description: "psql \(sql.prefix(60)): \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A database of its own for one test, dropped (with any connection left to it) when released.
public final class PostgresTestDatabase {
    public let name: String
    /// `postgres://relayfetch@127.0.0.40:5432/<name>`.
    public let url: String

    public init() throws {
        name = "relayfetch_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let base = try TestServers.postgresURL()
        try TestServers.psql("CREATE DATABASE \(name)")
        guard let slash = base.lastIndex(of: "/") else { throw TestServerError(description: "no database in \(base)") }
        url = base[..<slash] + "/" + name
    }

    deinit { _ = try? TestServers.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

    /// Rows of one query in this database, one line each, columns separated by "|".
    public func query(_ sql: String) throws -> [String] {
        try TestServers.psql(sql, url: url).split(separator: "\n").map(String.init)
    }
}
