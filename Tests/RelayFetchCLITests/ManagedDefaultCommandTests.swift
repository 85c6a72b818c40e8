import Foundation
import XCTest
import RelayFetchTestSupport

/// The managed default (issue 26, item 3): the administrator's and the user's installed profiles
/// apply to get, page, oauth and crawl when no relay option is given; the administrator's wins
/// for the hosts it covers; --direct is the only way around them; a covered host whose relays
/// are all down fails closed; a broken installed profile is a usage error naming its file. The
/// origins' logs show which relay each request came from (relay A 127.0.0.11, relay B
/// 127.0.0.12, directly 127.0.0.1).
final class ManagedDefaultCommandTests: XCTestCase {
    private var installed: InstalledProfiles!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        installed = try InstalledProfiles()
    }

    override func tearDown() { installed?.remove() }

    private let trustTestCA = ["--cacert", TestServers.caFile]

    /// The peer origin A logged for the request with `marker`.
    private func originAPeer(_ marker: String) throws -> String? {
        try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first
    }

    func testEveryCommandUsesTheUsersProfile() async throws {
        let marker = TestServers.marker("managed-user")
        // Nothing installed yet: refused, as before.
        let refused = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)-none"] + trustTestCA)
        XCTAssertEqual(refused.status, 2, refused.stderr)
        try installed.install(administrator: false, chain: [.a])

        let get = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)-get", "-o", "/dev/null"] + trustTestCA)
        XCTAssertEqual(get.status, 0, get.stderr)
        let page = await CommandRun.run(["page", "https://origin.test/index.html?\(marker)-page"] + trustTestCA)
        XCTAssertEqual(page.status, 0, page.stderr)
        let crawl = await CommandRun.run(["crawl", "https://origin.test/index.html?\(marker)-crawl", "--max-depth", "0", "--no-sitemaps"] + trustTestCA)
        XCTAssertEqual(crawl.status, 0, crawl.stderr)
        // The issuer is origin A (nginx): discovery fails on its 404, after the request went through relay A.
        let scenario = installed.root.appendingPathComponent("scenario.json")
        try Data(#"""
        {"name": "managed", "issuer": "https://origin.test/\#(marker)-oauth/o", "grant": "client_credentials",
         "client": {"id": "service-app", "auth": "client_secret_basic", "secret": "managed-secret"}}
        """#.utf8).write(to: scenario)
        let oauth = await CommandRun.run(["oauth", scenario.path] + trustTestCA)
        XCTAssertEqual(oauth.status, 1, oauth.stdoutText + oauth.stderr)
        XCTAssertTrue(oauth.stdoutText.contains("FAIL managed: discovery"), oauth.stdoutText)

        for command in ["get", "page", "crawl", "oauth"] {
            XCTAssertEqual(try originAPeer("\(marker)-\(command)"), "127.0.0.11", "\(command) went through relay A")
        }
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: "\(marker)-none"), [], "the refused run reached the origin")
    }

    func testTheAdministratorsProfileWinsForTheHostsItCovers() async throws {
        try installed.install(administrator: true, chain: [.b], matchDomains: ["origin.test"])
        try installed.install(administrator: false, chain: [.a])
        let marker = TestServers.marker("managed-admin")
        for host in ["origin.test", "www.origin.test", "origin2.test"] {
            let run = await CommandRun.run(["get", "https://\(host)/index.html?\(marker)-\(host)", "-o", "/dev/null"] + trustTestCA)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertEqual(try originAPeer("\(marker)-origin.test"), "127.0.0.12", "the administrator's relay B")
        XCTAssertEqual(try originAPeer("\(marker)-www.origin.test"), "127.0.0.12", "a subdomain of the administrator's domain")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: "\(marker)-origin2.test", skipping: 0).first?.first,
                       "127.0.0.11", "a host the administrator does not cover takes the user's relay A")
    }

    func testDirectIsTheOnlyWayAroundAndRelayOptionsReplaceTheProfiles() async throws {
        try installed.install(administrator: true, chain: [.a])
        let marker = TestServers.marker("managed-direct")
        let direct = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)-direct", "--direct", "-o", "/dev/null",
                                           "--resolve", "origin.test:443:\(TestServers.originAAddress)"] + trustTestCA)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let explicit = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)-relay", "-o", "/dev/null",
                                             "--relay", TestServers.relayBURL.absoluteString, "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)",
                                             "--relay-cacert", TestServers.caFile] + trustTestCA)
        XCTAssertEqual(explicit.status, 0, explicit.stderr)
        // The control: without either, the installed profile is in force.
        let installedRoute = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)-installed", "-o", "/dev/null"] + trustTestCA)
        XCTAssertEqual(installedRoute.status, 0, installedRoute.stderr)
        XCTAssertEqual(try originAPeer("\(marker)-installed"), "127.0.0.11", "the installed profile's relay A")
        XCTAssertEqual(try originAPeer("\(marker)-direct"), "127.0.0.1", "--direct bypasses the installed profile")
        XCTAssertEqual(try originAPeer("\(marker)-relay"), "127.0.0.12", "--relay replaces the installed profile")
    }

    /// The administrator's relay is down: the hosts it covers (every one, the origins' IP
    /// literals too, which are reachable directly, as proven after) fail, neither directly nor
    /// through the user's live relay A.
    func testACoveredHostWithItsRelaysDownFailsClosed() async throws {
        try installed.install(administrator: true, chain: [.dead])
        try installed.install(administrator: false, chain: [.a])
        let marker = TestServers.marker("managed-down")
        for address in [TestServers.originAAddress, TestServers.originBAddress] {
            let run = await CommandRun.run(["get", "https://\(address)/index.html?\(marker)", "-o", "/dev/null", "--connect-timeout", "3"] + trustTestCA)
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("127.0.0.13"), "the error names the dead relay: \(run.stderr)")
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        try await TestServers.proveDirectlyReachable(TestServers.originBAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
    }

    func testABrokenInstalledProfileIsAUsageErrorNamingItsFile() async throws {
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>PayloadContent".utf8)
        let plainHTTP = try PropertyListSerialization.data(fromPropertyList: [
            "PayloadType": "Configuration",
            "PayloadContent": [["PayloadType": "com.apple.relay.managed", "Relays": [["HTTP2RelayURL": "http://127.0.0.11:3128"]]]],
        ] as [String: Any], format: .xml, options: 0)
        let cases: [(Bool, Data, String)] = [
            (false, garbage, "not a valid property list"),
            (true, plainHTTP, "PayloadContent[0].Relays[0].HTTP2RelayURL: not an https URL"),
            (false, Data(), "not a property list, and not a CMS-signed profile either"),
        ]
        for (administrator, data, reason) in cases {
            try? FileManager.default.removeItem(at: installed.administratorFile)
            try? FileManager.default.removeItem(at: installed.userFile)
            try installed.write(data, administrator: administrator)
            let file = administrator ? installed.administratorFile.path : installed.userFile.path
            let expected = "relayfetch: the \(administrator ? "administrator" : "user")'s relay profile \(file) cannot be used: "
            for arguments in [["get", "https://origin.test/"], ["page", "https://origin.test/"], ["crawl", "https://origin.test/"]] {
                let run = await CommandRun.run(arguments)
                XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
                XCTAssertTrue(run.stderr.hasPrefix(expected) && run.stderr.contains(reason), "\(arguments): \(run.stderr)")
                XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            }
            let status = await CommandRun.run(["profile", "status"])
            XCTAssertEqual(status.status, 1, status.stderr)
            XCTAssertTrue(status.stderr.contains(file) && status.stderr.contains(reason), status.stderr)
        }
        // A folder where the file should be is no "nothing installed".
        try? FileManager.default.removeItem(at: installed.userFile)
        try FileManager.default.createDirectory(at: installed.userFile, withIntermediateDirectories: true)
        let folder = await CommandRun.run(["get", "https://origin.test/"])
        XCTAssertEqual(folder.status, 2, folder.stderr)
        XCTAssertTrue(folder.stderr.contains(installed.userFile.path), folder.stderr)
        // Domain options without --relay would be silently ignored under the installed profiles.
        try FileManager.default.removeItem(at: installed.userFile)
        try installed.install(administrator: false, chain: [.a])
        let domains = await CommandRun.run(["get", "https://origin.test/", "--match-domain", "origin.test"])
        XCTAssertEqual(domains.status, 2, domains.stderr)
        XCTAssertTrue(domains.stderr.contains("--match-domain and --exclude-domain apply to --relay; the installed profiles have their own domains"),
                      domains.stderr)
    }

    func testProfileStatusShowsWhatIsInForceAndWhereItCameFrom() async throws {
        let none = await CommandRun.run(["profile", "status"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertTrue(none.stdoutText.contains("administrator profile: none (\(installed.administratorFile.path) does not exist)"), none.stdoutText)
        XCTAssertTrue(none.stdoutText.contains("user profile: none (\(installed.userFile.path) does not exist)"), none.stdoutText)
        XCTAssertTrue(none.stdoutText.contains("in force: nothing"), none.stdoutText)

        try installed.install(administrator: true, chain: [.a, .b], matchDomains: ["origin.test"])
        try installed.install(administrator: false, chain: [.a])
        let run = await CommandRun.run(["profile", "status"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let admin = installed.administratorFile.path, user = installed.userFile.path
        for line in ["administrator profile: \(admin)", "  relay payload 1 (test.administrator):",
                     "    hop 1: HTTP/2 https://127.0.0.11:3129", "    hop 2: HTTP/2 https://127.0.0.12:3129",
                     "  warning: the profile is not signed", "user profile: \(user)",
                     "  1. https://127.0.0.11:3129 -> https://127.0.0.12:3129 (administrator, \(admin))",
                     "     covers: domains origin.test", "  2. https://127.0.0.11:3129 (user, \(user))", "     covers: every host",
                     "every host is covered: nothing goes directly unless --direct"] {
            XCTAssertTrue(run.stdoutText.contains(line + "\n"), "lacks \(line):\n\(run.stdoutText)")
        }
        XCTAssertFalse(run.stdoutText.contains("relay-token"), "header values must not be printed")
    }
}
