import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch oauth` against providers of our own that misbehave (oidc_provider.py on
/// 127.0.0.21, through relay A), with a second one on 127.0.0.22 as the "other origin" that
/// must receive nothing: its own log (which must exist) is the proof. Credentials go only to the
/// provider's origins; discovery and the JWKS follow no redirect off the origin; endpoints are
/// https on the provider's origins; ID tokens are checked after a refresh and in the device
/// grant; RFC 9207's `iss` is required when the metadata promises it.
final class OAuthHostileProviderTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    /// An authorization code scenario for `provider`'s public client "app", with `changes` applied.
    static func scenario(_ provider: HostileOIDCProvider, _ changes: [String: Any] = [:]) -> [String: Any] {
        var scenario: [String: Any] = ["name": "hostile", "issuer": provider.origin, "client": ["id": "app"],
                                       "redirectURI": "com.example.app:/callback", "scopes": ["openid"],
                                       "login": ["username": "alice", "password": "pw"]]
        scenario.merge(changes) { $1 }
        return scenario
    }

    /// Runs `scenario` through relay A; returns the run and its one verdict line.
    private func oauth(_ scenario: [String: Any]) async throws -> (CommandRun, verdict: String) {
        let file = directory.appendingPathComponent("\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        let run = await CommandRun.run(["oauth", file.path] + CommandRun.relayArguments)
        let verdict = run.stdoutText.split(separator: "\n").first { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }.map(String.init) ?? ""
        return (run, verdict)
    }

    /// The login form's action on another origin: no request reaches that origin (its log, read
    /// after the flow, is empty); listed in providerOrigins, the same origin gets the password,
    /// which proves its log would have shown it.
    func testLoginFormPostingToAnotherOriginGetsNoPassword() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let provider = try HostileOIDCProvider(pointingAt: sink, arguments: ["--login-action", "SINK/login"])
        let (run, verdict) = try await oauth(Self.scenario(provider))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(verdict.hasPrefix("FAIL hostile: login: the login form on \(provider.origin)/authorize?… submits to \(sink.origin)/login, "
                                        + "which is not one of the provider's https origins (\(provider.origin))"), verdict)
        XCTAssertTrue(try provider.requests().contains { $0 == ("GET", "/authorize") }, "the login page was never served")
        XCTAssertEqual(try sink.requests().map(\.path), [], "the other origin was contacted")

        let (listed, listedVerdict) = try await oauth(Self.scenario(provider, ["providerOrigins": [sink.origin]]))
        XCTAssertEqual(listed.status, 0, listed.stdoutText)
        XCTAssertTrue(listedVerdict.hasPrefix("PASS hostile"), listedVerdict)
        XCTAssertTrue(try sink.fields().contains { $0 == ("pw", "pw") }, "a listed login origin gets the password, and its log shows it")
    }

    /// The form's action is the provider's, but the submit button's formaction is elsewhere.
    func testSubmitButtonFormactionToAnotherOriginGetsNoPassword() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let provider = try HostileOIDCProvider(pointingAt: sink, arguments: ["--login-formaction", "SINK/login"])
        let (run, verdict) = try await oauth(Self.scenario(provider))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(verdict.contains("submits to \(sink.origin)/login, which is not one of the provider's https origins"), verdict)
        XCTAssertTrue(try provider.requests().contains { $0 == ("GET", "/authorize") }, "the login page was never served")
        XCTAssertEqual(try sink.requests().map(\.path), [], "the other origin was contacted")
    }

    /// The provider's login endpoint answers 307 to another origin (https, or http on the
    /// provider's own host): a browser would POST the password there again; the flow does not.
    func testLoginRedirectOffTheProviderCarriesNoPassword() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let plainSink = try HostileOIDCProvider(host: "127.0.0.22", arguments: ["--plain"])
        for target in [sink, plainSink] {
            let provider = try HostileOIDCProvider(pointingAt: target, arguments: ["--login-redirect", "SINK/login"])
            let (run, verdict) = try await oauth(Self.scenario(provider))
            XCTAssertEqual(run.status, 1, run.stdoutText)
            XCTAssertTrue(verdict.hasPrefix("FAIL hostile: login: the login form's answer redirects to \(target.origin)/login, "
                                            + "which is not one of the provider's https origins"), verdict)
            XCTAssertTrue(try provider.fields().contains { $0 == ("pw", "pw") }, "the provider never got the password")
        }
        XCTAssertEqual(try sink.requests().map(\.path), [], "the other https origin was contacted")
        XCTAssertEqual(try plainSink.requests().map(\.path), [], "the http origin was contacted")

        // A 302 drops the body: it is followed, as a GET without the password.
        let dropping = try HostileOIDCProvider(pointingAt: sink, arguments: ["--login-redirect", "SINK/elsewhere",
                                                                            "--login-redirect-status", "302 Found"])
        let (run, verdict) = try await oauth(Self.scenario(dropping))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(verdict.hasPrefix("FAIL hostile: login: stopped at \(sink.origin)/elsewhere"), verdict)
        XCTAssertTrue(try sink.requests().contains { $0 == ("GET", "/elsewhere") }, "the 302 was not followed")
        XCTAssertEqual(try sink.fields().map(\.name), [], "the 302 carried fields")
    }

    /// A device grant whose verification_uri is on another origin: the user's side never opens
    /// it. The same provider without that lie passes, its ID token verified.
    func testDeviceVerificationURIOnAnotherOriginIsNeverOpened() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let provider = try HostileOIDCProvider(pointingAt: sink, arguments: ["--verification-uri", "SINK/device-page"])
        let (run, verdict) = try await oauth(Self.scenario(provider, ["grant": "device_code"]))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(verdict.hasPrefix("FAIL hostile: device grant: verification_uri is \(sink.origin)/device-page, which is not one of"), verdict)
        XCTAssertTrue(try provider.requests().contains { $0 == ("POST", "/device") })
        XCTAssertEqual(try sink.requests().map(\.path), [], "the other origin was contacted")

        let honest = try HostileOIDCProvider()
        let (passed, passedVerdict) = try await oauth(Self.scenario(honest, ["grant": "device_code"]))
        XCTAssertEqual(passed.status, 0, passed.stdoutText)
        XCTAssertTrue(passedVerdict.hasPrefix("PASS hostile"), passedVerdict)
        XCTAssertTrue(passed.stdoutText.contains(", ID token verified"), passed.stdoutText)
        XCTAssertTrue(try honest.fields().contains { $0 == ("pw", "pw") }, "the user signed in at the provider")
    }

    /// The device grant's ID token is verified: one for another audience fails the flow.
    func testDeviceGrantIDTokenForAnotherAudienceFails() async throws {
        let provider = try HostileOIDCProvider(arguments: ["--device-claims", #"{"aud": "someone-else"}"#])
        let (run, verdict) = try await oauth(Self.scenario(provider, ["grant": "device_code"]))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertEqual(verdict, #"FAIL hostile: ID token: aud ["someone-else"] does not contain "app""#)
        XCTAssertTrue(try provider.requests().contains { $0 == ("POST", "/device-page/login") }, "the user never approved")
    }

    /// Discovery and the JWKS follow no redirect to another origin (https or http); a redirect
    /// within the provider's origin is followed.
    func testDiscoveryAndJWKSFollowNoRedirectOffTheOrigin() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let plainSink = try HostileOIDCProvider(host: "127.0.0.22", arguments: ["--plain"])
        let discovery = try HostileOIDCProvider(pointingAt: sink, arguments: ["--redirect", "/.well-known/openid-configuration=SINK/.well-known/openid-configuration"])
        var (run, verdict) = try await oauth(Self.scenario(discovery))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(verdict.hasPrefix("FAIL hostile: discovery: \(discovery.origin)/.well-known/openid-configuration redirected to \(sink.origin)/"), verdict)
        for (name, target) in [("https", sink), ("http", plainSink)] {
            let keys = try HostileOIDCProvider(pointingAt: target, arguments: ["--redirect", "/jwks=SINK/jwks"])
            (run, verdict) = try await oauth(Self.scenario(keys))
            XCTAssertEqual(run.status, 1, run.stdoutText)
            XCTAssertTrue(verdict.hasPrefix("FAIL hostile: discovery: \(keys.origin)/jwks redirected to \(target.origin)/jwks"), "\(name): \(verdict)")
            XCTAssertTrue(try keys.requests().contains { $0 == ("GET", "/jwks") }, "\(name): the JWKS was never asked for")
        }
        XCTAssertEqual(try sink.requests().map(\.path), [], "the https origin the provider redirected to was contacted")
        XCTAssertEqual(try plainSink.requests().map(\.path), [], "the http origin the provider redirected to was contacted")

        let moved = try HostileOIDCProvider(arguments: ["--endpoint", "jwks_uri=/old-jwks", "--redirect", "/old-jwks=/jwks"])
        (run, verdict) = try await oauth(Self.scenario(moved))
        XCTAssertEqual(run.status, 0, run.stdoutText)
        XCTAssertEqual(try moved.requests().filter { $0.path.hasSuffix("jwks") }.map(\.path), ["/old-jwks", "/jwks"])
    }

    /// A discovered token endpoint on another origin, or over http, is refused before the code
    /// or the client secret is sent; listed in providerOrigins, another https origin is allowed.
    func testDiscoveredEndpointsOffTheProviderOriginsAreRefused() async throws {
        let sink = try HostileOIDCProvider(host: "127.0.0.22")
        let plainSink = try HostileOIDCProvider(host: "127.0.0.22", arguments: ["--plain"])
        let client: [String: Any] = ["id": "app", "auth": "client_secret_post", "secret": "the-client-secret"]
        for target in [sink, plainSink] {
            let provider = try HostileOIDCProvider(pointingAt: target, arguments: ["--endpoint", "token_endpoint=SINK/token"])
            let (run, verdict) = try await oauth(Self.scenario(provider, ["client": client]))
            XCTAssertEqual(run.status, 1, run.stdoutText)
            XCTAssertTrue(verdict.hasPrefix("FAIL hostile: discovery: token_endpoint is \(target.origin)/token, which is not one of the provider's"), verdict)
            XCTAssertTrue(try provider.requests().contains { $0 == ("GET", "/.well-known/openid-configuration") })
        }
        XCTAssertEqual(try sink.requests().map(\.path), [], "the other https origin was contacted")
        XCTAssertEqual(try plainSink.requests().map(\.path), [], "the http origin was contacted")

        let provider = try HostileOIDCProvider(pointingAt: sink, arguments: ["--endpoint", "userinfo_endpoint=SINK/userinfo"])
        let (listed, verdict) = try await oauth(Self.scenario(provider, ["providerOrigins": [sink.origin], "userinfo": true]))
        XCTAssertEqual(listed.status, 0, verdict + listed.stdoutText)
        XCTAssertTrue(try sink.requests().contains { $0 == ("GET", "/userinfo") })
    }

    /// An ID token issued on refresh for another subject, or for a wider audience, fails the
    /// flow (OIDC Core §12.2); the provider's log shows the refresh happened.
    func testRefreshedIDTokenMustKeepSubjectAndAudience() async throws {
        for (claims, check) in [(#"{"sub": "mallory"}"#, "sub"), (#"{"aud": ["app", "intruder"], "azp": "app"}"#, "aud")] {
            let provider = try HostileOIDCProvider(arguments: ["--refresh-claims", claims])
            let (run, verdict) = try await oauth(Self.scenario(provider, ["refresh": true]))
            XCTAssertEqual(run.status, 1, run.stdoutText)
            XCTAssertEqual(verdict, "FAIL hostile: ID token: \(check) of the refreshed ID token is not the original ID token's")
            XCTAssertTrue(try provider.fields().contains { $0 == ("grant_type", "refresh_token") }, "no refresh reached the provider")
        }
        let honest = try HostileOIDCProvider()
        let (run, verdict) = try await oauth(Self.scenario(honest, ["refresh": true]))
        XCTAssertEqual(run.status, 0, verdict + run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("ID token verified (same iss, sub, aud as at login)"), run.stdoutText)
    }

    /// `authorization_response_iss_parameter_supported: true` makes `iss` mandatory in the
    /// authorization response (RFC 9207 §2.4); sent, it passes.
    func testIssParameterIsRequiredWhenTheMetadataPromisesIt() async throws {
        let silent = try HostileOIDCProvider(arguments: ["--iss-supported"])
        let (run, verdict) = try await oauth(Self.scenario(silent))
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertEqual(verdict, "FAIL hostile: authorization: the redirect has no iss, though the provider's metadata says it sends one (RFC 9207)")
        let sending = try HostileOIDCProvider(arguments: ["--iss-supported", "--send-iss"])
        let (passed, passedVerdict) = try await oauth(Self.scenario(sending))
        XCTAssertEqual(passed.status, 0, passedVerdict + passed.stdoutText)
    }
}
