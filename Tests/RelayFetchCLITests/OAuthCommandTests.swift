import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch oauth` against the test identity provider (https://idp.test) through relay A then
/// relay B: every sample scenario (one per grant), the README example as written, verdicts, exit
/// statuses, JUnit XML valid against the common schema, and no secret in any output.
final class OAuthCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The variables Samples/oauth/*.json name.
        setenv("IDP_PASSWORD", IdentityProvider.password, 1)
        setenv("CLIENT_SECRET", IdentityProvider.confidentialClientSecret, 1)
        setenv("SERVICE_SECRET", IdentityProvider.serviceClientSecret, 1)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func scenario(_ name: String, _ json: String) throws -> String {
        let file = directory.appendingPathComponent("\(name).json")
        try Data(json.utf8).write(to: file)
        return file.path
    }

    private func login(_ password: String = "${env:IDP_PASSWORD}", consent: String = "approve") -> String {
        #"{"username": "alice", "password": "\#(password)", "consent": "\#(consent)"}"#
    }

    static let samples = TestServers.repository.appendingPathComponent("Samples/oauth")
    /// Samples/oauth's scenarios and their names, in the order they are run.
    static let sampleScenarios = [
        ("login", "alice signs in through two relays"), ("consent", "public client consents (PKCE, custom-scheme redirect)"),
        ("client-secret-post", "confidential client, client_secret_post"), ("client-credentials", "service token (client credentials)"),
        ("device", "device grant (RFC 8628)"), ("web-app", "web app login (user-agent role)"),
        ("consent-denied", "consent denied ends with access_denied"),
    ]
    static var junitSchema: String { TestServers.repository.appendingPathComponent("Tests/RelayFetchCLITests/Fixtures/junit.xsd").path }

    /// Every sample scenario at once (`--parallel 4`) through the two-hop chain: each passes,
    /// each step prints its line, the JUnit file is valid against the schema, the HAR files
    /// redact what they must, and no output file holds any secret the provider saw or issued.
    func testEverySampleScenarioPassesThroughTwoRelays() async throws {
        let requestsBefore = try IdentityProvider.requests().count
        let secretsBefore = try IdentityProvider.secrets().count
        let files = try Set(FileManager.default.contentsOfDirectory(atPath: Self.samples.path).filter { $0.hasSuffix(".json") })
        XCTAssertEqual(files, Set(Self.sampleScenarios.map { "\($0.0).json" }), "a sample scenario this test does not run")
        let junit = directory.appendingPathComponent("junit.xml").path
        let har = directory.appendingPathComponent("har").path
        let run = await CommandRun.run(["oauth"] + Self.sampleScenarios.map { Self.samples.appendingPathComponent("\($0.0).json").path }
                                       + ["--junit", junit, "--parallel", "4", "--har", har] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderr)
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("PASS ") }.count, Self.sampleScenarios.count, run.stdoutText)
        for step in ["discovery", "authorize", "token", "userinfo", "refresh", "expected error", "device grant", "login"] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("  \(step) ") }, "no \(step) line in:\n\(run.stdoutText)")
        }
        let blocks = run.stdoutText.components(separatedBy: "scenario ").dropFirst()
        XCTAssertEqual(blocks.count, Self.sampleScenarios.count, "each scenario's lines together:\n\(run.stdoutText)")
        XCTAssertTrue(blocks.allSatisfy { $0.contains("PASS ") }, run.stdoutText)

        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertEqual(try XMLSchemaValidator(schemaFile: Self.junitSchema).errors(in: xml), [], xml)
        let order = Self.sampleScenarios.compactMap { xml.range(of: "name=\"\($0.1)\"")?.lowerBound }
        XCTAssertEqual(order.count, Self.sampleScenarios.count, xml)
        XCTAssertEqual(order, order.sorted(), "JUnit test cases in the order the files were given")
        XCTAssertTrue(xml.contains(#"<testsuite name="relayfetch oauth" tests="7" failures="0""#), xml)

        let check = try TestServers.run(["/usr/bin/python3", "-c", Self.harCheck, "\(har)/public_client_consents__PKCE__custom-scheme_redirect_.har"])
        XCTAssertEqual(check.status, 0, check.output)
        try assertNoSecrets(in: [run.stdoutText, run.stderr], files: directory, secretsBefore: secretsBefore)
        let requests = try IdentityProvider.requests().dropFirst(requestsBefore)
        XCTAssertGreaterThan(requests.count, 20, "\(requests)")
        XCTAssertEqual(requests.filter { $0.clientAddress != TestServers.relayBURL.host }, [], "requests that did not come from relay B")
    }

    /// The README's `relayfetch oauth` example, run by bash exactly as README.md shows it (in a
    /// scratch folder holding a link to Samples/), with the built executable on PATH.
    func testReadmeExampleRunsAsWritten() throws {
        let readme = try String(contentsOf: TestServers.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- readme-oauth-example -->\n```sh\n", end = "```\n<!-- /readme-oauth-example -->"
        let script = try XCTUnwrap(readme.components(separatedBy: begin).dropFirst().first?.components(separatedBy: end).first,
                                   "README.md has no oauth example between \(begin) and \(end)")
        XCTAssertTrue(script.contains("relayfetch oauth Samples/oauth/login.json"), script)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("Samples"),
                                                   withDestinationURL: TestServers.repository.appendingPathComponent("Samples"))
        let requestsBefore = try IdentityProvider.requests().count
        let secretsBefore = try IdentityProvider.secrets().count
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = URL(fileURLWithPath: CommandRun.executable).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["RELAYFETCH_SERVERS_DIR"] = TestServers.directory.path
        for name in ["IDP_PASSWORD", "CLIENT_SECRET", "SERVICE_SECRET"] { environment[name] = nil }
        let run = try TestServers.run(["/bin/bash", "-euo", "pipefail", "-c", "cd '\(directory.path)'\n" + script], environment: environment)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("PASS alice signs in through two relays ("), run.output)
        let xml = try String(contentsOf: directory.appendingPathComponent("oauth-junit.xml"), encoding: .utf8)
        XCTAssertEqual(try XMLSchemaValidator(schemaFile: Self.junitSchema).errors(in: xml), [], xml)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("oauth-har/alice_signs_in_through_two_relays.har").path))
        try assertNoSecrets(in: [run.output], files: directory, secretsBefore: secretsBefore)
        let requests = try IdentityProvider.requests().dropFirst(requestsBefore)
        XCTAssertGreaterThanOrEqual(requests.count, 7, "\(requests)")
        XCTAssertEqual(Set(requests.map(\.clientAddress)), [TestServers.relayBURL.host!])
    }

    /// No text nor file under `files` holds a password or client secret, nor any state, nonce,
    /// code, token or CSRF value the provider logged after its first `secretsBefore` secrets.
    private func assertNoSecrets(in texts: [String], files: URL, secretsBefore: Int,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let seen = Array(try IdentityProvider.secrets().dropFirst(secretsBefore))
        for kind in ["state", "nonce", "code", "access_token", "password"] {
            XCTAssertTrue(seen.contains { $0.name == kind }, "the provider logged no \(kind): the check below cannot prove anything", file: file, line: line)
        }
        let values = Set(seen.map(\.value) + [IdentityProvider.password, IdentityProvider.confidentialClientSecret,
                                              IdentityProvider.serviceClientSecret])
        var outputs = texts.enumerated().map { ("output \($0.offset)", $0.element) }
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: files, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            if url.lastPathComponent.hasSuffix(".json") && url.deletingLastPathComponent() == files { continue } // our scenarios
            outputs.append((url.path, try String(contentsOf: url, encoding: .utf8)))
        }
        XCTAssertGreaterThan(outputs.count, texts.count, "no output file to check", file: file, line: line)
        for (name, text) in outputs {
            for value in values where text.contains(value) {
                let kind = seen.first { $0.value == value }?.name ?? "password or client secret"
                XCTFail("\(name) holds a \(kind) value", file: file, line: line)
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
    seen = {"cookie": 0, "set-cookie": 0, "authorization": 0}
    for e in entries:
        for h in e["request"]["headers"] + e["response"]["headers"]:
            if h["name"].lower() in seen:
                seen[h["name"].lower()] += 1
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
    # The provider set cookies and an Authorization header went out: the checks above saw each
    # kind, so their passing means something. (A request's Cookie header is added by the session
    # after the recorder took the request, so the HAR has none to check: the jar's cookies were
    # sent, or Django's CSRF check would have refused the login.)
    assert seen["set-cookie"] > 0 and seen["authorization"] > 0, seen
    """

    func testWrongPasswordFailsWithExitOneAndItsReason() async throws {
        let file = try scenario("wrong", #"""
        {"name": "wrong password", "issuer": "\#(IdentityProvider.issuer)", "client": {"id": "public-app"},
         "redirectURI": "com.example.app:/callback", "login": \#(login("not-her-password"))}
        """#)
        let junit = directory.appendingPathComponent("junit.xml").path
        let run = await CommandRun.run(["oauth", file, "--junit", junit] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdoutText.contains("FAIL wrong password: login: stopped at https://idp.test/accounts/login/"), run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("the login form came back after signing in"), run.stdoutText)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<failure message=\"login: stopped at"), xml)
        XCTAssertEqual(try XMLSchemaValidator(schemaFile: Self.junitSchema).errors(in: xml), [], xml)
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
        let origins = try scenario("origins", #"""
        {"name": "o", "issuer": "https://origin.test/o", "providerOrigins": ["https://login.test", "http://login.test"],
         "client": {"id": "x"}, "redirectURI": "a:/b", "login": {"username": "u", "password": "p"}}
        """#)
        let plain = await CommandRun.run(["oauth", origins])
        XCTAssertEqual(plain.status, 2)
        XCTAssertEqual(plain.stderr, "relayfetch: \(origins): $.providerOrigins[1] must be an https origin such as https://login.example.com\n")
        let agent = try scenario("agent", #"{"name": "a", "startURL": "https://app.test/login", "login": {"username": "u", "password": "p"}}"#)
        let noOrigins = await CommandRun.run(["oauth", agent])
        XCTAssertEqual(noOrigins.stderr, "relayfetch: \(agent): $.providerOrigins the user-agent role needs the provider's origins (where the password may be sent)\n")
        let unset = try scenario("unset", #"{"name": "u", "issuer": "${env:RELAYFETCH_TEST_NOT_SET}", "client": {"id": "x"}}"#)
        let third = await CommandRun.run(["oauth", unset])
        XCTAssertEqual(third.stderr, "relayfetch: \(unset): $.issuer environment variable RELAYFETCH_TEST_NOT_SET is not set\n")
    }

    /// The schema is strict enough to fail: documents JUnit readers would reject, or that would
    /// hide a bug of ours, are invalid.
    func testJUnitSchemaRejectsInvalidDocuments() throws {
        let validator = try XMLSchemaValidator(schemaFile: Self.junitSchema)
        let valid = #"<testsuites><testsuite name="s" tests="1" failures="1" time="0.5" timestamp="2026-12-01T10:00:00Z">"#
            + #"<testcase name="c" classname="k" time="0.1"><failure message="m" type="t">x</failure><system-out>o</system-out></testcase>"#
            + #"</testsuite></testsuites>"#
        XCTAssertEqual(validator.errors(in: valid), [])
        for invalid in [
            #"<testsuites><testsuite tests="1"><testcase name="c"/></testsuite></testsuites>"#, // suite without a name
            #"<testsuites><testsuite name="s" tests="1"><testcase classname="k"/></testsuite></testsuites>"#, // case without a name
            #"<testsuites><testsuite name="s" tests="one"/></testsuites>"#, // a count that is not a number
            #"<testsuites><testsuite name="s" tests="1" time="-1"/></testsuites>"#, // negative time
            #"<testsuites><testsuite name="s" tests="1" timestamp="yesterday"/></testsuites>"#,
            #"<testsuites><testsuite name="s" tests="1"><failure message="m"/></testsuite></testsuites>"#, // failure outside a case
            #"<testsuites><testsuite name="s" tests="1"><testcase name="c"><skipped/><failure/></testcase></testsuite></testsuites>"#,
            #"<testsuites><testsuite name="s" tests="1"><testcase name="c"><system-out/><failure/></testcase></testsuite></testsuites>"#,
            #"<testsuites><testsuite name="s" tests="1"><testcase name="c"><verdict/></testcase></testsuite></testsuites>"#,
            #"<results/>"#,
            #"<testsuites><testsuite name="s" tests="1">"#, // not well-formed
        ] {
            XCTAssertNotEqual(validator.errors(in: invalid), [], invalid)
        }
    }
}
