import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch get` against the real relay and origins.
final class GetCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testGetThroughTheRelayPrintsTheBody() async throws {
        let marker = TestServers.marker("cli")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.contains("<title>relayfetch sample site</title>"))
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    func testIncludeVerboseAndOutputFile() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = await CommandRun.run(["get", "https://origin2.test/redirect", "-i", "-v", "-o", output.path] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
        let saved = try String(contentsOf: output, encoding: .utf8)
        XCTAssertTrue(saved.hasPrefix("HTTP/2 200\r\n"), saved)
        XCTAssertTrue(saved.contains("\r\n\r\n<!DOCTYPE html>"))
        XCTAssertTrue(run.stderr.contains("* route: https://127.0.0.11:3129 -> origin2.test"), run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 (127.0.0.11:3129, HTTPS, HTTP/1.1 CONNECT): tunnel open after"), run.stderr)
        XCTAssertTrue(run.stderr.contains("< HTTP/2 200 from https://origin2.test/index.html"), run.stderr)
    }

    func testFailFlagTurnsHTTPErrorsIntoExitOne() async {
        let plain = await CommandRun.run(["get", "https://origin.test/status/404"] + CommandRun.relayArguments)
        XCTAssertEqual(plain.status, 0)
        let failing = await CommandRun.run(["get", "-f", "https://origin.test/status/404"] + CommandRun.relayArguments)
        XCTAssertEqual(failing.status, 1)
        XCTAssertTrue(failing.stderr.contains("the server answered 404"), failing.stderr)
    }

    func testRelayErrorsNameTheHopAndExitOne() async {
        let cases: [([String], String)] = [
            (["--relay", "https://127.0.0.11:3129", "--relay-cacert", TestServers.caFile],
             "relayfetch: error: hop 1 (127.0.0.11:3129, HTTPS, HTTP/1.1 CONNECT): relay refused the tunnel: 407"),
            (["--relay", "https://127.0.0.11:3129", "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)"],
             "relayfetch: error: hop 1 (127.0.0.11:3129, HTTPS): TLS handshake failed: certificate verify failed"),
            (["--relay", TestServers.deadRelayURL.absoluteString],
             "relayfetch: error: hop 1 (127.0.0.13:3129, HTTPS): connection refused"),
        ]
        for (relay, expected) in cases {
            let run = await CommandRun.run(["get", "https://origin.test/"] + relay + ["--cacert", TestServers.caFile])
            XCTAssertEqual(run.status, 1, "\(relay)")
            XCTAssertTrue(run.stderr.hasPrefix(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one error line: \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty)
        }
    }

    /// An unknown relay host, run in a network namespace of its own so no DNS query leaves the
    /// machine: a real process, exit status 1, one line naming hop 1.
    func testUnknownRelayHostIsAClearErrorFromTheRealExecutable() throws {
        // Loopback up inside it: the session's tunnel listener lives on 127.0.0.1.
        let result = try TestServers.run(["/usr/bin/unshare", "-n", "/bin/sh", "-c", "ip link set lo up && exec \"$0\" \"$@\"",
                                          CommandRun.executable, "get", "https://origin.test/", "--relay", "https://relay.invalid:3129"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.output.hasPrefix("relayfetch: error: hop 1 (relay.invalid:3129, HTTPS): cannot resolve relay host: relay.invalid"),
                      result.output)
        let usage = try TestServers.run([CommandRun.executable, "get", "ftp://origin.test/"])
        XCTAssertEqual(usage.status, 2, usage.output)
    }

    func testBadUsageExitsTwoWithOneClearLine() async {
        let cases: [([String], String)] = [
            (["get"], "get needs a URL"),
            (["get", "not a url"], "malformed URL \"not a url\""),
            (["get", "ftp://origin.test/file"], "unsupported URL scheme \"ftp\""),
            (["get", "https://"], "malformed URL \"https://\""),
            (["get", "https://origin.test/", "--relay-header", "X: y"], "--relay-header must follow the --relay it applies to"),
            (["get", "https://origin.test/", "--relay", "ftp://r:1080"], "unsupported relay scheme \"ftp\" (use https://, http:// or socks5://)"),
            // A SOCKS5 hop has no header fields, TLS or protocol choice: its per-relay options are refused.
            (["get", "https://origin.test/", "--relay", "socks5://r:1080", "--relay-header", "Proxy-Authorization: Basic eA=="],
             "--relay-header applies to https:// and http:// relays: a socks5:// relay has no TLS, header fields or protocol choice"),
            (["get", "https://origin.test/", "--relay", "socks5://r:1080", "--relay-protocol", "h2"], "--relay-protocol applies to https:// and http:// relays"),
            (["get", "https://origin.test/", "--relay", "https://r", "--relay-protocol", "socks5"], "--relay-protocol must be auto, h1, h2 or h3, not \"socks5\""),
            (["get", "https://origin.test/", "--relay", "https://r", "--relay-header", "no colon"], "needs the form 'Name: value'"),
            (["get", "https://origin.test/", "--relay", "https://r", "--relay-cacert", "/nonexistent.pem"], "--relay-cacert /nonexistent.pem: no such readable file"),
            (["get", "https://origin.test/", "--bogus"], "unknown option --bogus"),
            (["get", "https://origin.test/", "--connect-timeout", "soon"], "--connect-timeout needs a number of seconds above 0"),
            (["frobnicate"], "unknown command \"frobnicate\""),
        ]
        for (arguments, expected) in cases {
            let run = await CommandRun.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one error line: \(run.stderr)")
        }
    }

    /// `--help` output is part of the interface: pinned to files in Fixtures/.
    func testHelpIsPinned() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        for (arguments, file) in [(["--help"], "help.txt"), (["get", "--help"], "get-help.txt"), (["profile", "--help"], "profile-help.txt"), (["page", "--help"], "page-help.txt"),
                                  (["oauth", "--help"], "oauth-help.txt"),
                                  (["crawl", "--help"], "crawl-help.txt"), (["proxy", "--help"], "proxy-help.txt")] {
            let run = await CommandRun.run(arguments)
            XCTAssertEqual(run.status, 0)
            XCTAssertEqual(run.stdoutText, try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8), file)
        }
    }
}

/// `relayfetch get` through a two-hop chain, with per-hop options.
final class GetChainCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTwoHopChainFromTheCommandLine() async {
        let marker = TestServers.marker("clichain")
        let run = await CommandRun.run([
            "get", "https://origin2.test/index.html?\(marker)", "-v", "-o", "/dev/null", "--cacert", TestServers.caFile,
            "--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h2",
            "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile,
            "--relay", TestServers.relayBURL.absoluteString, "--relay-protocol", "h1",
            "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)", "--relay-cacert", TestServers.caFile,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* route: https://127.0.0.11:4433 -> https://127.0.0.12:3129 -> origin2.test"), run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 (127.0.0.11:4433, HTTPS, HTTP/2 CONNECT): tunnel open after"), run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 2 (127.0.0.12:3129, HTTPS, HTTP/1.1 CONNECT): tunnel open after"), run.stderr)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?.first, "127.0.0.12")
    }

    func testHTTP3RelayFromTheCommandLine() async {
        let marker = TestServers.marker("clih3")
        let tunnel = "\tCONNECT\t-\torigin.test:443\t-\t200\t"
        let tunnelsBefore = (try? TestServers.logLines(TestServers.http3RelayALog, containing: tunnel).count) ?? -1
        let run = await CommandRun.run([
            "get", "https://origin.test/index.html?\(marker)", "-v", "-o", "/dev/null", "--cacert", TestServers.caFile,
            "--relay", "https://127.0.0.11:4433", "--relay-protocol", "h3",
            "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 (127.0.0.11:4433, QUIC, HTTP/3 CONNECT): tunnel open after"), run.stderr)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
        XCTAssertGreaterThanOrEqual(tunnelsBefore, 0, "the HTTP/3 relay's log is missing")
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.http3RelayALog, containing: tunnel, skipping: max(0, tunnelsBefore)).isEmpty,
                       "the HTTP/3 relay's log has a new tunnel to origin.test")
    }

    func testPinAndProtocolOptions() async throws {
        let pin = "sha256//" + (try TestServers.relayPublicKeySHA256()).base64EncodedString()
        let pinned = await CommandRun.run(["get", "https://origin.test/", "-o", "/dev/null", "--cacert", TestServers.caFile,
                                           "--relay", TestServers.http2RelayAURL.absoluteString, "--relay-pin", pin,
                                           "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)"])
        XCTAssertEqual(pinned.status, 0, pinned.stderr)
        // A wrong pin over TCP (h2), and over QUIC (auto: relay A serves HTTP/3 on this port); a
        // pin mismatch is a refusal, never a reason to try the other transport.
        for (relayProtocol, hop) in [("h2", "hop 1 (127.0.0.11:4433, HTTPS)"), ("auto", "hop 1 (127.0.0.11:4433, QUIC, HTTP/3 CONNECT)")] {
            let wrongPin = await CommandRun.run(["get", "https://origin.test/", "--cacert", TestServers.caFile,
                                                 "--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", relayProtocol,
                                                 "--relay-pin", "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()])
            XCTAssertEqual(wrongPin.status, 1)
            XCTAssertTrue(wrongPin.stderr.contains("\(hop): the relay's public key matches none of the pinned keys"), wrongPin.stderr)
        }
        let h2OnSquid = await CommandRun.run(["get", "https://origin.test/", "--cacert", TestServers.caFile] + [
            "--relay", TestServers.relayURL.absoluteString, "--relay-protocol", "h2", "--relay-cacert", TestServers.caFile])
        XCTAssertEqual(h2OnSquid.status, 1)
        XCTAssertTrue(h2OnSquid.stderr.contains("hop 1 (127.0.0.11:3129, HTTPS): relay does not offer HTTP/2 (h2)"), h2OnSquid.stderr)
        // squid listens on TCP only: over UDP (HTTP/3) nothing answers, and there is no fallback to TCP.
        let h3 = await CommandRun.run(["get", "https://origin.test/", "--relay", TestServers.relayURL.absoluteString, "--relay-protocol", "h3"])
        XCTAssertEqual(h3.status, 1)
        XCTAssertTrue(h3.stderr.contains("hop 1 (127.0.0.11:3129, QUIC, HTTP/3 CONNECT): connection refused"), h3.stderr)
        for bad in [["--relay-protocol", "h9"], ["--relay-pin", "sha256//abc"]] {
            let run = await CommandRun.run(["get", "https://origin.test/", "--relay", "https://r"] + bad)
            XCTAssertEqual(run.status, 2, "\(bad): \(run.stderr)")
        }
    }
}

/// `--max-time` and `--idle-timeout` against a hostile origin that stays silent.
final class GetTimeoutCommandTests: XCTestCase {
    /// Runs `get` of `path` on a fresh hostile origin through squid with `options`.
    private func runGet(_ path: String, _ options: [String]) async throws -> (CommandRun, UInt16) {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        return (await CommandRun.run(["get", "https://origin.test:\(origin.port)\(path)"] + options + CommandRun.relayArguments), origin.port)
    }

    func testIdleTimeoutNamesTheOriginAndTheHop() async throws {
        let (run, port) = try await runGet("/unlength-stall/100", ["--idle-timeout", "1"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("no data for 1 s from origin.test:\(port) through hop 1 (127.0.0.11:3129)"), run.stderr)
    }

    func testMaxTimeEndsAStalledBody() async throws {
        let (run, _) = try await runGet("/stall-body/100", ["--max-time", "1.5"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("timed out after 1.5 s"), run.stderr)
    }

    func testTimeoutsMustBePositive() async {
        for option in ["--max-time", "--idle-timeout", "--connect-timeout"] {
            let run = await CommandRun.run(["get", "https://origin.test/", option, "0"])
            XCTAssertEqual(run.status, 2, option)
            XCTAssertTrue(run.stderr.contains("\(option) needs a number of seconds above 0"), run.stderr)
        }
    }
}

/// `page` against a document that never finishes: the idle timeout ends it with exit 1.
final class PageTimeoutCommandTests: XCTestCase {
    func testPageOfASilentOriginEndsWithTheIdleTimeout() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        let started = Date()
        let run = await CommandRun.run(["page", "https://origin.test:\(origin.port)/unlength-stall/100", "--idle-timeout", "1"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("no data for 1 s from origin.test:\(origin.port)"), run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(try origin.events().filter { $0.contains("/unlength-stall/") }.count, 1)
    }
}

/// `--ohttp-keys URL` without a relay chain goes to the OHTTP relay's own host and nowhere else.
final class ObliviousKeyFetchCommandTests: XCTestCase {
    func testARedirectOfTheKeyFetchIsNotFollowedDirectly() async throws {
        let relayHost = try HostileServer(script: "origin.py")
        let elsewhere = try HostileServer(script: "origin.py", arguments: ["--plain"])
        defer { relayHost.stop(); elsewhere.stop() }
        let target = "http://127.0.0.21:\(elsewhere.port)/keys".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let run = await CommandRun.run(["get", "https://origin.test/", "--ohttp-relay", "https://127.0.0.21:\(relayHost.port)/relay",
                                        "--ohttp-keys", "https://127.0.0.21:\(relayHost.port)/redirect?to=\(target)",
                                        "--cacert", TestServers.caFile])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("gave 302"), run.stderr)
        XCTAssertEqual(try relayHost.events().filter { $0.contains("/redirect") }.count, 1, "the key fetch reached the relay's host")
        XCTAssertEqual(try elsewhere.events(), [], "the redirect was followed directly to another host")
    }
}
