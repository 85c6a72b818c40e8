import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch crawl --store postgres://...` as operators run it: several worker processes share
/// one frontier in the real PostgreSQL server of scripts/test-postgres.sh, each through relays.
final class CrawlWorkersCommandTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
    }

    /// Three workers, one killed with SIGKILL mid-crawl while it holds URLs. From the origin's
    /// log: every page fetched; each exactly once, except pages the killed worker held under
    /// lease at the kill (a request in flight may have reached the origin before it died), which
    /// the others fetched again once the lease ran out. Never more than --per-host requests at
    /// the origin at once, across the three. The store afterwards: every URL completed once,
    /// no claim left, counts as the origin saw them.
    func testThreeWorkersOneKilledFetchEveryPageOnceExceptWhatTheKilledOneHeld() throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 300, serverArguments: ["--delay-ms", "10"])
        let arguments = ["crawl", site.origin + "/", "--store", database.url, "--lease", "4", "--per-host", "3",
                         "--strip-query-param", "utm_source"] + CommandRun.relayArguments
        let workers = try (0..<3).map { _ in try CommandRun.start(arguments) }
        defer { workers.filter(\.isRunning).forEach { kill($0.processIdentifier, SIGKILL) } }
        let victim = workers[1]
        let holdsQuery = "SELECT url FROM crawl_pages WHERE state = 1 AND worker LIKE '%:\(victim.processIdentifier):%'"
        // Once 100 pages are in: stop the victim, and kill it if it holds URLs (else let it go on
        // and look again), so what it held at the kill is what the store shows after.
        var deadline = Date().addingTimeInterval(60)
        while Date() < deadline && victim.isRunning {
            if try site.pageFetchCounts().values.reduce(0, +) >= 100 {
                kill(victim.processIdentifier, SIGSTOP)
                if !(try database.query(holdsQuery)).isEmpty { break }
                kill(victim.processIdentifier, SIGCONT)
            }
            usleep(2_000)
        }
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        XCTAssertEqual(victim.terminationReason, .uncaughtSignal, "killed mid-crawl, not finished")
        let heldAtKill = Set(try database.query(holdsQuery).compactMap { URLComponents(string: $0)?.percentEncodedPath })
        XCTAssertFalse(heldAtKill.isEmpty, "the killed worker held URLs")
        deadline = Date().addingTimeInterval(120)
        for survivor in [workers[0], workers[2]] {
            while survivor.isRunning && Date() < deadline { usleep(20_000) }
            XCTAssertFalse(survivor.isRunning, "a worker did not finish in 120 s")
            survivor.waitUntilExit()
            XCTAssertEqual(survivor.terminationStatus, 0)
        }

        let expected = try site.expectedPaths()
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(expected), "no page lost")
        let repeated = Set(counts.filter { $0.value > 1 }.keys)
        XCTAssertTrue(repeated.isSubset(of: heldAtKill), "fetched twice but not held by the killed worker: \(repeated.subtracting(heldAtKill))")
        XCTAssertTrue(counts.values.allSatisfy { $0 <= 2 }, "\(counts.filter { $0.value > 2 })")
        let requests = try site.requests()
        XCTAssertTrue((2...3).contains(requests.filter { $0.path == "/robots.txt" }.count), "robots.txt once per worker (the killed one's may not have gone out)")
        XCTAssertLessThanOrEqual(requests.map(\.inProgress).max() ?? 0, 3, "--per-host 3 holds across the workers")

        XCTAssertEqual(try database.query("SELECT state, count(*) FROM crawl_pages GROUP BY state ORDER BY state"),
                       ["2|\(expected.count)", "4|1"], "every page fetched, robots.txt's private page blocked, nothing queued or claimed")
        XCTAssertEqual(try database.query("SELECT count(*) FROM crawl_pages WHERE completions <> 1 OR lease_until IS NOT NULL"), ["0"],
                       "every URL completed once")
        let reclaimed = Set(try database.query("SELECT url FROM crawl_pages WHERE claims > 1").compactMap { URLComponents(string: $0)?.percentEncodedPath })
        XCTAssertTrue(heldAtKill.isSubset(of: reclaimed), "the killed worker's URLs came back and were claimed again")
        XCTAssertEqual(try database.query("SELECT count(DISTINCT worker) FROM crawl_pages"), ["3"], "all three workers completed pages")
    }

    /// --max-pages counts every worker's pages: two workers stop together at the limit.
    func testMaximumPagesHoldsAcrossWorkers() throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 100, serverArguments: ["--delay-ms", "5"])
        let arguments = ["crawl", site.origin + "/", "--store", database.url, "--max-pages", "40", "--per-host", "4",
                         "--strip-query-param", "utm_source"] + CommandRun.relayArguments
        let workers = try (0..<2).map { _ in try CommandRun.start(arguments) }
        for process in workers {
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        let done = Int(try database.query("SELECT count(*) FROM crawl_pages WHERE state IN (2, 3)").first ?? "") ?? 0
        XCTAssertTrue((40...41).contains(done), "40 pages, or one more when both workers claimed the last at once: \(done)")
        XCTAssertEqual(try site.pageFetchCounts().values.reduce(0, +), done, "the origin saw as many")
    }

    /// A second worker, or a rerun, with options that change what is crawled is refused, naming
    /// the option; --change-options records the new ones.
    func testWorkerWithOtherOptionsIsRefusedNamingTheOption() async throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 5)
        let base = ["crawl", site.origin + "/", "--store", database.url, "--strip-query-param", "utm_source"] + CommandRun.relayArguments
        let first = await CommandRun.run(base + ["--max-depth", "1"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let other = await CommandRun.run(base + ["--max-depth", "2"])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.stderr.contains("max-depth: stored 1, now 2") && other.stderr.contains("--change-options"), other.stderr)
        XCTAssertEqual(other.stderr.split(separator: "\n").count, 1, other.stderr)
        let changed = await CommandRun.run(base + ["--max-depth", "2", "--change-options"])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertEqual(try database.query("SELECT value FROM crawl_options WHERE name = 'max-depth'"), ["2"])
    }

    /// A password in the store's string, as a URL parameter or in key=value conninfo (which is
    /// a PostgreSQL store too, not a file name), reaches no message of the command.
    func testTheStorePasswordReachesNoMessage() async throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 3)
        let stores = [database.url + "?password=s3cret-query&sslmode=disable",
                      "host=127.0.0.40 port=5432 user=relayfetch dbname=\(database.name) password='s3cret conninfo'"]
        for store in stores {
            let base = ["crawl", site.origin + "/", "--store", store, "--strip-query-param", "utm_source"] + CommandRun.relayArguments
            let first = await CommandRun.run(base + ["--max-depth", "1"])
            XCTAssertEqual(first.status, 0, first.stderr)
            XCTAssertFalse(first.stderr.contains("s3cret") || first.stdoutText.contains("s3cret"), first.stderr)
            let other = await CommandRun.run(base + ["--max-depth", "2"])
            XCTAssertEqual(other.status, 1)
            XCTAssertTrue(other.stderr.contains("max-depth: stored 1, now 2"), other.stderr)
            XCTAssertFalse(other.stderr.contains("s3cret"), other.stderr)
            XCTAssertTrue(other.stderr.contains("password=***"), other.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: stores[1]), "no SQLite file named after the conninfo string")
        XCTAssertEqual(try database.query("SELECT count(*) > 0 FROM crawl_pages WHERE state = 2"), ["t"], "the crawl went to PostgreSQL")
    }

    func testLeaseWithoutPostgresIsBadUsage() async {
        let run = await CommandRun.run(["crawl", "https://origin.test/", "--store", "crawl.db", "--lease", "5"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("--lease applies to a PostgreSQL store only"), run.stderr)
        let zero = await CommandRun.run(["crawl", "https://origin.test/", "--store", "postgresql://u@127.0.0.40/db", "--lease", "0"])
        XCTAssertEqual(zero.status, 2)
        XCTAssertTrue(zero.stderr.contains("--lease needs a number of seconds above 0"), zero.stderr)
    }

    /// The same for an SQLite file: a rerun with another scope is refused.
    func testSQLiteRerunWithOtherOptionsIsRefused() async throws {
        let site = try CrawlSite(pages: 3)
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-options-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let base = ["crawl", site.origin + "/", "--store", store] + CommandRun.relayArguments
        let first = await CommandRun.run(base)
        XCTAssertEqual(first.status, 0, first.stderr)
        let other = await CommandRun.run(base + ["--deny", "private"])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.stderr.contains("deny: stored none, now \"private\""), other.stderr)
        let typed = await CommandRun.run(base + ["--accept-type", "text/html"])
        XCTAssertEqual(typed.status, 1)
        XCTAssertTrue(typed.stderr.contains("accept-type: stored none, now \"text/html\""), typed.stderr)
        let same = await CommandRun.run(base)
        XCTAssertEqual(same.status, 0, same.stderr)
    }
}
