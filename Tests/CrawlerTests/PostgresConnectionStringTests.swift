import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// A PostgreSQL store's connection string: its passwords, in every form libpq reads, reach no
/// message (libpq's own errors included), and its other parameters reach libpq. Against the real
/// server of scripts/test-postgres.sh (trust authentication: a password given is not needed, so
/// a store with one works), and an address nothing listens on.
final class PostgresConnectionStringTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// The secret of these tests, with characters that need escaping in each form.
    private static let secret = "s3cret&<>\" \\%é"

    /// Parts of every form the password may take in a message, as written (escaped) and as
    /// read: its start, and its end in each form (a mask that stopped early leaves the end).
    private static let secretForms = ["s3cret", "<>", "%C3%A9", "é"]

    private func assertRedacted(_ message: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        for form in Self.secretForms {
            XCTAssertFalse(message.contains(form), "\(context): \(message)", file: file, line: line)
        }
        XCTAssertTrue(message.contains("***"), "\(context): the password is shown as ***: \(message)", file: file, line: line)
    }

    func testNoFormOfThePasswordReachesAConnectionError() throws {
        let encoded = try XCTUnwrap(Self.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let quoted = "'" + Self.secret.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        let cases = [
            // Nothing listens on 127.0.0.41: libpq's error names the address.
            "postgres://relayfetch:\(encoded)@127.0.0.41:5432/none?connect_timeout=2",
            "postgresql://relayfetch@127.0.0.41:5432/none?connect_timeout=2&password=\(encoded)",
            "host=127.0.0.41 port=5432 user=relayfetch dbname=none connect_timeout=2 password=\(quoted)",
            "host=127.0.0.41 port=5432 connect_timeout=2 password=s3cret-unquoted dbname=none",
            // The server answers: no such database, no SSL for a client key's password.
            "postgres://relayfetch@127.0.0.40:5432/no_such_database?password=\(encoded)",
            "postgres://relayfetch@127.0.0.40:5432/relayfetch?sslmode=require&sslpassword=\(encoded)",
            // libpq refuses the string itself, quoting the password it could not decode.
            "postgres://relayfetch:s3cret%zz@127.0.0.40:5432/relayfetch",
        ]
        for url in cases {
            XCTAssertThrowsError(try PostgresCrawlStore(url: url), url) { error in
                assertRedacted("\(error)", url)
                XCTAssertTrue("\(error)".contains("127.0.0.4"), "names the server: \(error)")
            }
        }
    }

    /// Past the connection: a store refused for its stored options names the store, and only
    /// with the password masked.
    func testNoPasswordReachesTheMessagesOfAnOpenStore() throws {
        let database = try PostgresTestDatabase()
        let encoded = try XCTUnwrap(Self.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        for url in [database.url + "?password=" + encoded, database.url.replacingOccurrences(of: "relayfetch@", with: "relayfetch:\(encoded)@")] {
            var configuration = CrawlConfiguration(scope: try CrawlScope(maximumDepth: 1))
            try PostgresCrawlStore(url: url).adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: true)
            configuration.scope = try CrawlScope(maximumDepth: 2)
            XCTAssertThrowsError(try PostgresCrawlStore(url: url).adopt(CrawlOptions(configuration: configuration, scope: configuration.scope),
                                                                        replacing: false)) { error in
                XCTAssertTrue("\(error)".contains("max-depth: stored 1, now 2"), "\(error)")
                assertRedacted("\(error)", url)
            }
        }
    }

    /// sslmode and the other parameters of the string reach libpq, in both forms; a conninfo
    /// string is a PostgreSQL store, not a file name.
    func testLibpqParametersOfTheStringAreHonoured() throws {
        let database = try PostgresTestDatabase()
        XCTAssertThrowsError(try PostgresCrawlStore(url: database.url + "?sslmode=require")) { error in
            XCTAssertTrue("\(error)".contains("server does not support SSL, but SSL was required"), "\(error)")
        }
        let name = "relayfetch-test-\(UUID().uuidString.prefix(8))"
        let conninfo = "host=127.0.0.40 port=5432 user=relayfetch dbname=\(database.name) sslmode=disable application_name=\(name)"
        XCTAssertEqual(CrawlStoreLocation(conninfo), .postgres(url: conninfo))
        for string in [database.url + "?sslmode=disable&application_name=" + name, conninfo] {
            let store = try CrawlStoreLocation(string).open()
            XCTAssertTrue(store.isShared, string)
            XCTAssertEqual(try database.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)'"), ["1"], string)
        }
        XCTAssertEqual(CrawlStoreLocation("crawl.db"), .sqliteFile("crawl.db"))
        XCTAssertEqual(CrawlStoreLocation("runs/a=b.db"), .sqliteFile("runs/a=b.db"), "not pairs libpq reads")
    }

    func testDisplayNameMasksEachPasswordAndNothingElse() {
        let cases = [
            ("postgres://u:p%40ss@db:5432/crawl?sslmode=verify-full", "postgres://u:***@db:5432/crawl?sslmode=verify-full"),
            ("postgresql://u@db/crawl?password=x&sslmode=verify-full", "postgresql://u@db/crawl?password=***&sslmode=verify-full"),
            ("host=db password = 'a \\' b' sslmode=verify-full", "host=db password = *** sslmode=verify-full"),
            ("host=db sslpassword=k\\ ey user=u", "host=db sslpassword=*** user=u"),
            ("postgres://u@db/crawl?sslmode=verify-full&sslrootcert=/etc/ca.pem", "postgres://u@db/crawl?sslmode=verify-full&sslrootcert=/etc/ca.pem"),
        ]
        for (text, display) in cases {
            XCTAssertEqual(PostgresConnectionString(text).displayName, display)
        }
        let string = PostgresConnectionString("postgres://u:p%40ss@db/crawl")
        XCTAssertEqual(string.redacted("invalid token \"p%40ss\"; p@ss"), "invalid token \"***\"; ***", "as written and as read")
    }
}
