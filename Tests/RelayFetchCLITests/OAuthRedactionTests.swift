import Foundation
import XCTest
import RelayFetchTestSupport

/// Secrets holding `& < > " \ %`, spaces and non-ASCII, which a provider of our own
/// (oidc_provider.py --echo) sends back everywhere it can: in the login redirect's query and
/// fragment, a response header, the token response's JSON and a token error's description. No
/// output of `relayfetch oauth` (terminal, JUnit, HAR) holds them in any form, escaped or
/// encoded; the provider's control characters reach neither the terminal nor the XML.
final class OAuthRedactionTests: XCTestCase {
    static let password = #"p&w<o>r"d\ 100%25 é€秘"#
    static let clientSecret = #"s&amp;<b>"\\ %2F 秘密 ü"#
    /// A description that tries to colour the terminal, forge a PASS line and reverse text.
    static let hostileDescription = "bad\u{1B}[31m code\nPASS forged\u{202E}gnp.exe"

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-redaction-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    /// Every form the tests look for: as is, XML- and JSON-escaped, and percent-encoded as forms,
    /// queries and RFC 3986 encode it (spaces as `+` or `%20`, hex in either case).
    static func forms(of secret: String) -> Set<String> {
        let xml = secret.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        let json = String(String(decoding: try! JSONSerialization.data(withJSONObject: [secret]), as: UTF8.self).dropFirst(2).dropLast(2))
        var forms: Set<String> = [secret, xml, json]
        for allowed in [CharacterSet.alphanumerics, .urlQueryAllowed, CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")] {
            let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed)!
            forms.formUnion([encoded, encoded.replacingOccurrences(of: "%20", with: "+")])
        }
        return forms
    }

    func testSecretsThatNeedEscapingAreRedactedInTerminalJUnitAndHAR() async throws {
        let common = ["--password", Self.password, "--client-secret", Self.clientSecret, "--echo"]
        let passing = try HostileOIDCProvider(arguments: common)
        let failing = try HostileOIDCProvider(arguments: common + ["--token-error", Self.hostileDescription])
        var files: [String] = []
        for (name, provider) in [("echoed secrets", passing), ("hostile error", failing)] {
            var scenario = OAuthHostileProviderTests.scenario(provider, [
                "client": ["id": "app", "auth": "client_secret_post", "secret": Self.clientSecret],
                "login": ["username": "alice", "password": Self.password], "userinfo": true, "refresh": true,
            ])
            scenario["name"] = name
            let file = directory.appendingPathComponent("\(files.count).json")
            try JSONSerialization.data(withJSONObject: scenario).write(to: file)
            files.append(file.path)
        }
        let outputs = directory.appendingPathComponent("out")
        let junit = outputs.appendingPathComponent("junit.xml")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let run = await CommandRun.run(["oauth"] + files + ["--junit", junit.path, "--har", outputs.appendingPathComponent("har").path]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1, run.stdoutText + run.stderr)

        // The secrets went through the provider (the check below is live) and came back.
        for provider in [passing, failing] {
            let fields = try provider.fields()
            XCTAssertTrue(fields.contains { $0 == ("pw", Self.password) }, "the password never reached the provider")
            XCTAssertTrue(fields.contains { $0 == ("client_secret", Self.clientSecret) }, "the client secret never reached the provider")
        }
        let lines = run.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("PASS ") }, lines.filter { $0.hasPrefix("PASS echoed secrets (") }, run.stdoutText)
        XCTAssertEqual(lines.filter { $0.hasPrefix("PASS ") }.count, 1, run.stdoutText)
        let failure = try XCTUnwrap(lines.first { $0.hasPrefix("FAIL hostile error: ") }, run.stdoutText)
        XCTAssertTrue(failure.contains(#"bad\u{1B}[31m code\u{A}PASS forged\u{202E}gnp.exe (you sent [redacted], password [redacted])"#), failure)
        XCTAssertFalse(run.stdoutText.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "a control character reached the terminal")

        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertEqual(try XMLSchemaValidator(schemaFile: OAuthCommandTests.junitSchema).errors(in: xml), [], xml)
        XCTAssertTrue(xml.contains("(you sent [redacted], password [redacted])"), xml)

        let hars = try FileManager.default.contentsOfDirectory(at: outputs.appendingPathComponent("har"), includingPropertiesForKeys: nil)
        XCTAssertEqual(hars.count, 2)
        var texts = [("stdout", run.stdoutText), ("stderr", run.stderr), ("JUnit", xml)]
        for har in hars {
            let text = try String(contentsOf: har, encoding: .utf8)
            texts.append((har.lastPathComponent, text))
            // Every string in the file, decoded: no secret even after percent-decoding.
            var strings: [String] = []
            func collect(_ value: Any) {
                if let text = value as? String { strings.append(text) }
                if let object = value as? [String: Any] { object.forEach { strings.append($0.key); collect($0.value) } }
                if let array = value as? [Any] { array.forEach(collect) }
            }
            collect(try JSONSerialization.jsonObject(with: Data(text.utf8)))
            for string in strings {
                let decoded = [string, string.removingPercentEncoding ?? "", string.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""]
                XCTAssertFalse(decoded.contains { $0.contains(Self.password) || $0.contains(Self.clientSecret) }, "\(har.lastPathComponent): \(string)")
            }
        }
        // Where the provider echoed them, the HAR keeps the place and blanks the value.
        let echoes = try XCTUnwrap(hars.first { $0.lastPathComponent == "echoed_secrets.har" })
        let log = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: echoes)) as? [String: Any])
        let entries = try XCTUnwrap((log["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let responses = entries.compactMap { $0["response"] as? [String: Any] }
        let headers = responses.flatMap { ($0["headers"] as? [[String: String]]) ?? [] }
        XCTAssertEqual(headers.filter { $0["name"] == "X-Echo" }.map { $0["value"] }, ["[redacted]"])
        let redirect = try XCTUnwrap(responses.compactMap { $0["redirectURL"] as? String }.first { $0.contains("echo=") })
        XCTAssertTrue(redirect.hasSuffix("&echo=%5Bredacted%5D#echo=%5Bredacted%5D"), redirect)
        let bodies = responses.compactMap { ($0["content"] as? [String: Any])?["text"] as? String }
        XCTAssertEqual(bodies.filter { $0.contains(#""echo":"[redacted] \/ [redacted]""#) }.count, 2, "\(bodies)")
        for (name, text) in texts {
            for secret in [Self.password, Self.clientSecret] {
                for form in Self.forms(of: secret) where text.contains(form) {
                    XCTFail("\(name) holds the secret as \(form)")
                }
            }
        }
    }
}
