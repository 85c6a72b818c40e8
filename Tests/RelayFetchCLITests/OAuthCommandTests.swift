import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch oauth` against the test identity provider through relay A: verdicts, exit
/// statuses, JUnit XML, and no secret in any output.
final class OAuthCommandTests: XCTestCase {
    nonisolated(unsafe) private static var provider: IdentityProvider?
    private var directory: URL!

    override class func setUp() {
        super.setUp()
        provider = try? IdentityProvider()
    }

    override class func tearDown() {
        provider?.stop()
        provider = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        setenv("RELAYFETCH_TEST_IDP_PASSWORD", IdentityProvider.password, 1)
        setenv("RELAYFETCH_TEST_SERVICE_SECRET", IdentityProvider.serviceClientSecret, 1)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func scenario(_ name: String, _ json: String) throws -> String {
        let file = directory.appendingPathComponent("\(name).json")
        try Data(json.utf8).write(to: file)
        return file.path
    }

    private func issuer() throws -> String { try XCTUnwrap(Self.provider, "the identity provider did not start").issuer }

    private func login(_ password: String = "${env:RELAYFETCH_TEST_IDP_PASSWORD}", consent: String = "approve") -> String {
        #"{"username": "alice", "password": "\#(password)", "consent": "\#(consent)"}"#
    }

    func testScenariosPassWithStepsJUnitAndNoSecrets() async throws {
        let issuer = try issuer()
        let loginFile = try scenario("login", #"""
        {"name": "alice logs in", "issuer": "\#(issuer)", "client": {"id": "public-app"},
         "redirectURI": "com.example.app:/callback", "scopes": ["openid", "email"], "login": \#(login()),
         "userinfo": true, "refresh": true,
         "expect": {"tokenType": "Bearer", "scopes": ["openid"], "claims": {"email": "alice@origin.test"}}}
        """#)
        let service = try scenario("service", #"""
        {"name": "service token", "issuer": "\#(issuer)", "grant": "client_credentials", "scopes": ["read"],
         "client": {"id": "service-app", "auth": "client_secret_post", "secret": "${env:RELAYFETCH_TEST_SERVICE_SECRET}"}}
        """#)
        let denied = try scenario("denied", #"""
        {"name": "consent denied", "issuer": "\#(issuer)", "client": {"id": "public-app"},
         "redirectURI": "com.example.app:/callback", "login": \#(login(consent: "deny")), "expect": {"error": "access_denied"}}
        """#)
        let device = try scenario("device", #"""
        {"name": "device grant", "issuer": "\#(issuer)", "grant": "device_code", "client": {"id": "device-app"},
         "deviceAuthorizationEndpoint": "\#(issuer)/device-authorization/", "scopes": ["read"], "login": \#(login())}
        """#)
        let app = try scenario("app", #"""
        {"name": "web app login", "startURL": "\#(issuer.dropLast(2))/app/login", "login": \#(login()),
         "expect": {"status": 200, "text": "Welcome, alice@origin.test", "urlPattern": "^https://origin\\.test:[0-9]+/app/$"}}
        """#)
        let junit = directory.appendingPathComponent("junit.xml").path
        let har = directory.appendingPathComponent("har").path
        let run = await CommandRun.run(["oauth", loginFile, service, denied, device, app, "--junit", junit, "--parallel", "4", "--har", har]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderr)
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("PASS ") }.count, 5, run.stdoutText)
        for step in ["discovery", "authorize", "token", "userinfo", "refresh", "expected error", "device grant", "login"] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("  \(step) ") }, "no \(step) line in:\n\(run.stdoutText)")
        }
        let blocks = run.stdoutText.components(separatedBy: "scenario ").dropFirst()
        XCTAssertEqual(blocks.count, 5, "each scenario's lines together:\n\(run.stdoutText)")
        XCTAssertTrue(blocks.allSatisfy { $0.contains("PASS ") }, run.stdoutText)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        let order = ["alice logs in", "service token", "consent denied", "device grant", "web app login"].compactMap { xml.range(of: "name=\"\($0)\"")?.lowerBound }
        XCTAssertEqual(order, order.sorted(), "JUnit test cases in the order the files were given")
        XCTAssertEqual(order.count, 5)
        XCTAssertTrue(xml.contains(#"<testsuite name="relayfetch oauth" tests="5" failures="0""#), xml)
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 5)
        // Well-formed, with the elements and attributes JUnit readers use.
        let check = """
        import sys, xml.etree.ElementTree as E
        root = E.parse(sys.argv[1]).getroot()
        assert root.tag == "testsuites", root.tag
        for suite in root:
            assert suite.tag == "testsuite" and int(suite.get("tests")) == len(suite.findall("testcase"))
            for case in suite.findall("testcase"):
                assert case.get("name") and case.get("classname") and float(case.get("time")) >= 0
        """
        let lint = try TestServers.run(["/usr/bin/python3", "-c", check, junit])
        XCTAssertEqual(lint.status, 0, lint.output)
        let hars = try ["alice_logs_in", "service_token", "consent_denied", "device_grant", "web_app_login"].map {
            try String(contentsOfFile: "\(har)/\($0).har", encoding: .utf8)
        }
        let harCheck = try TestServers.run(["/usr/bin/python3", "-c", Self.harCheck, "\(har)/alice_logs_in.har"])
        XCTAssertEqual(harCheck.status, 0, harCheck.output)
        for output in [run.stdoutText, run.stderr, xml] + hars {
            for secret in [IdentityProvider.password, IdentityProvider.serviceClientSecret] {
                XCTAssertFalse(output.contains(secret), "a secret was printed")
            }
        }
    }

    /// The HAR of a login holds every step, and no code, token, cookie or password in clear.
    static let harCheck = """
    import sys, json
    from urllib.parse import urlsplit
    entries = json.load(open(sys.argv[1]))["log"]["entries"]
    steps = [(e["request"]["method"], urlsplit(e["request"]["url"]).path) for e in entries]
    for wanted in [("GET", "/o/.well-known/openid-configuration"), ("GET", "/o/authorize/"), ("POST", "/accounts/login/"),
                   ("POST", "/o/authorize/"), ("POST", "/o/token/"), ("GET", "/o/userinfo/")]:
        assert wanted in steps, (wanted, steps)
    for e in entries:
        for h in e["request"]["headers"] + e["response"]["headers"]:
            if h["name"].lower() in ("cookie", "set-cookie", "authorization"):
                assert h["value"] == "[redacted]", h
        for p in e["request"].get("postData", {}).get("params", []):
            if p["name"] in ("password", "code", "code_verifier", "refresh_token", "csrfmiddlewaretoken"):
                assert p["value"] == "[redacted]", p
        text = e["response"]["content"].get("text")
        if text and "access_token" in text:
            body = json.loads(text)
            assert body["access_token"] == body["refresh_token"] == body["id_token"] == "[redacted]", body
        location = e["response"]["redirectURL"]
        assert "code=" not in location or "code=%5Bredacted%5D" in location, location
    assert any(p.get("name") == "password" for e in entries for p in e["request"].get("postData", {}).get("params", [])), "no login POST"
    """

    func testWrongPasswordFailsWithExitOneAndItsReason() async throws {
        let issuer = try issuer()
        let file = try scenario("wrong", #"""
        {"name": "wrong password", "issuer": "\#(issuer)", "client": {"id": "public-app"},
         "redirectURI": "com.example.app:/callback", "login": \#(login("not-her-password"))}
        """#)
        let junit = directory.appendingPathComponent("junit.xml").path
        let run = await CommandRun.run(["oauth", file, "--junit", junit] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdoutText.contains("FAIL wrong password: login: stopped at https://origin.test:"), run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("the login form came back after signing in"), run.stdoutText)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<failure message=\"login: stopped at"), xml)
        XCTAssertFalse((run.stdoutText + xml).contains("not-her-password"))
    }

    func testBadScenarioFileNamesFileAndJSONPath() async throws {
        let file = try scenario("bad", #"""
        {"name": "bad", "issuer": "https://origin.test/o", "client": {"id": "x", "auth": "magic"}, "redirectURI": "a:/b",
         "login": {"username": "u", "password": "p"}}
        """#)
        let run = await CommandRun.run(["oauth", file] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "relayfetch: \(file): $.client.auth must be none, client_secret_basic, client_secret_post or private_key_jwt\n")
        let missing = try scenario("missing", #"{"name": "m", "issuer": "https://origin.test/o", "client": {}}"#)
        let second = await CommandRun.run(["oauth", missing])
        XCTAssertEqual(second.status, 2)
        XCTAssertEqual(second.stderr, "relayfetch: \(missing): $.client.id is missing\n")
        let unset = try scenario("unset", #"{"name": "u", "issuer": "${env:RELAYFETCH_TEST_NOT_SET}", "client": {"id": "x"}}"#)
        let third = await CommandRun.run(["oauth", unset])
        XCTAssertEqual(third.stderr, "relayfetch: \(unset): $.issuer environment variable RELAYFETCH_TEST_NOT_SET is not set\n")
    }
}
