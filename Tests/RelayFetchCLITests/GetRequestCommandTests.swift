import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch get` sending what curl sends (methods, bodies, forms, uploads, credentials),
/// through relays, a two-hop chain and Oblivious HTTP, checked from the origin's side: an echo
/// origin of our own (Samples/servers/hostile/echo_origin.py) logs every request it received.
final class GetRequestCommandTests: XCTestCase {
    private var origin: HostileServer!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        origin = try HostileServer(script: "echo_origin.py")
    }

    override func tearDown() { origin?.stop() }

    private func url(_ path: String, host: String = "origin.test") -> String { "https://\(host):\(origin.port)\(path)" }

    /// The requests the origin logged whose target contains `marker` (or, `atPath`, starts with
    /// "/" + marker); throws without a log.
    private func received(_ marker: String, atPath: Bool = false) throws -> [[String: Any]] {
        try origin.events().compactMap { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let target = object["target"] as? String, atPath ? target.hasPrefix("/" + marker) : target.contains(marker) else { return nil }
            return object
        }
    }

    private func header(_ request: [String: Any], _ name: String) -> String? {
        (request["headers"] as? [[String]])?.first { $0[0].lowercased() == name }?[1]
    }

    static var ohttpArguments: [String] {
        ["--ohttp-relay", TestServers.ohttpRelayURL.absoluteString + "/relay", "--ohttp-keys", TestServers.ohttpKeysFile.path,
         "--cacert", TestServers.caFile]
    }

    func testJSONPostThroughTwoRelaysAndThroughObliviousHTTPReachesTheOriginAsSent() async throws {
        let routes = [("chain", CommandRun.twoHopRelayArguments, "127.0.0.12", "127.0.0.11:3129 -> 127.0.0.12:3129"),
                      ("ohttp", Self.ohttpArguments, "127.0.0.32", "ohttp:https://127.0.0.30/relay")]
        for (label, route, peer, chain) in routes {
            let marker = TestServers.marker(label)
            let json = #"{"name":"relayfetch","items":[1,2]}"#
            let run = await CommandRun.run(["get", url("/echo?\(marker)"), "--json", json, "-w", "\\n%{http_code} %{relay_chain}"] + route)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdoutText.hasSuffix("\n200 \(chain)"), run.stdoutText)
            let seen = try received(marker)
            XCTAssertEqual(seen.count, 1, label)
            XCTAssertEqual(seen.first?["method"] as? String, "POST", label)
            XCTAssertEqual(seen.first?["body"] as? String, json, label)
            XCTAssertEqual(seen.first.flatMap { header($0, "content-type") }, "application/json", label)
            XCTAssertEqual(seen.first.flatMap { header($0, "accept") }, "application/json", label)
            XCTAssertEqual(seen.first?["peer"] as? String, peer, "the origin sees the last hop (or the gateway): \(label)")
        }
    }

    func testDataFormCredentialsAndRangeAsCurlSendsThem() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("get-bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = folder.appendingPathComponent("lines.txt"), picture = folder.appendingPathComponent("pic.png")
        try Data("a=1\nb=2\r\n".utf8).write(to: lines)
        try Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]).write(to: picture)
        for (label, route) in [("relay", CommandRun.relayArguments), ("ohttp", Self.ohttpArguments)] {
            let marker = TestServers.marker(label)
            var run = await CommandRun.run(["get", url("/echo?d-\(marker)"), "-d", "@\(lines.path)", "-d", "c=3", "--data-urlencode", "q=a b&c",
                                            "-X", "PATCH", "-u", "user:pa:ss", "-A", "agent/1", "-e", "https://from.test/", "-sS"] + route)
            XCTAssertEqual(run.status, 0, run.stderr)
            run = await CommandRun.run(["get", url("/echo?f-\(marker)"), "-F", "title=hello", "-F", "file=@\(picture.path);type=image/x-test",
                                        "-r", "0-99", "-o", "/dev/null"] + route)
            XCTAssertEqual(run.status, 0, run.stderr)
            let data = try XCTUnwrap(try received("d-\(marker)").first, label)
            XCTAssertEqual(data["method"] as? String, "PATCH")
            XCTAssertEqual(data["body"] as? String, "a=1b=2&c=3&q=a%20b%26c", "-d @file loses its line breaks, pieces joined by &")
            XCTAssertEqual(header(data, "content-type"), "application/x-www-form-urlencoded")
            XCTAssertEqual(header(data, "authorization"), "Basic " + Data("user:pa:ss".utf8).base64EncodedString())
            XCTAssertEqual(header(data, "user-agent"), "agent/1")
            XCTAssertEqual(header(data, "referer"), "https://from.test/")
            let form = try XCTUnwrap(try received("f-\(marker)").first, label)
            XCTAssertEqual(form["method"] as? String, "POST")
            XCTAssertEqual(header(form, "range"), "bytes=0-99")
            let type = try XCTUnwrap(header(form, "content-type"))
            XCTAssertTrue(type.hasPrefix("multipart/form-data; boundary="), type)
            let boundary = String(type.dropFirst("multipart/form-data; boundary=".count))
            let body = try XCTUnwrap(form["body"] as? String)
            XCTAssertEqual(body, "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n"
                           + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"pic.png\"\r\nContent-Type: image/x-test\r\n\r\n"
                           + String(decoding: Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]), as: UTF8.self) + "\r\n--\(boundary)--\r\n")
        }
    }

    /// -T - streams standard input (a pipe) through two relays as a chunked PUT; -T FILE goes
    /// with its length, and through Oblivious HTTP as one sealed message.
    func testUploadStreamsStandardInputThroughTwoRelaysAndAFileThroughObliviousHTTP() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<(6 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try content.write(to: file)
        let digest = try TestServers.run(["/usr/bin/sha256sum", file.path]).output.prefix(64)
        let marker = TestServers.marker("pipe")
        let result = try TestServers.run(["/bin/sh", "-c", "cat '\(file.path)' | \"$0\" \"$@\"", CommandRun.executable, "get", url("/upload?\(marker)"),
                                          "-T", "-", "-s", "-w", "%{http_code} %{size_upload}"] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.hasSuffix("ok\n200 \(content.count)"), result.output)
        let piped = try XCTUnwrap(try received(marker).first)
        XCTAssertEqual(piped["method"] as? String, "PUT")
        XCTAssertEqual(piped["body_length"] as? Int, content.count)
        XCTAssertEqual(piped["body_sha256"] as? String, String(digest))
        XCTAssertEqual(piped["chunked"] as? Bool, true, "a pipe has no length: chunked")
        XCTAssertEqual(piped["peer"] as? String, "127.0.0.12")

        let sealed = TestServers.marker("ohttp-put")
        let run = try TestServers.run([CommandRun.executable, "get", url("/upload/?\(sealed)"), "-T", file.path, "-s"] + Self.ohttpArguments)
        XCTAssertEqual(run.status, 0, run.output)
        let put = try XCTUnwrap(try received(sealed).first)
        XCTAssertEqual(put["target"] as? String, "/upload/\(file.lastPathComponent)?\(sealed)", "a URL ending in / gets the file's name")
        XCTAssertEqual(put["body_sha256"] as? String, String(digest))
        XCTAssertEqual(put["peer"] as? String, "127.0.0.32")
    }

    /// curl's redirect rules, and ours: a method or body never goes to an origin the user did not name.
    func testRedirectsChangeTheMethodAsCurlAndNeverCarryABodyToAnotherOrigin() async throws {
        let marker = TestServers.marker("redir")
        let other = url("/echo-other-\(marker)", host: "www.origin.test")
        // 307 to another origin: not followed; the redirect is the answer, with a warning.
        var run = await CommandRun.run(["get", url("/redirect/307?to=\(other)&\(marker)"), "-d", "secret=1", "-u", "u:p",
                                        "-w", "%{http_code} %{num_redirects} %{redirect_url}"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.hasSuffix("307 0 \(other)"), run.stdoutText)
        XCTAssertTrue(run.stderr.contains("was not followed: it would take the POST and its body to another origin"), run.stderr)
        XCTAssertEqual(try received("echo-other-\(marker)", atPath: true).count, 0, "the other origin saw nothing")
        // 307 on the same origin keeps method, body and credentials.
        run = await CommandRun.run(["get", url("/redirect/307?to=/echo-same-\(marker)"), "-d", "secret=1", "-u", "u:p", "-o", "/dev/null"]
                                   + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let same = try XCTUnwrap(try received("echo-same-\(marker)", atPath: true).first)
        XCTAssertEqual([same["method"] as? String, same["body"] as? String, header(same, "authorization")], ["POST", "secret=1", "Basic dTpw"])
        // 303 (and 302 after POST) becomes a GET without the body, and credentials stay home.
        for status in [303, 302] {
            let target = url("/echo-\(status)-\(marker)", host: "www.origin.test")
            run = await CommandRun.run(["get", url("/redirect/\(status)?to=\(target)"), "-d", "secret=1", "-u", "u:p", "-o", "/dev/null"]
                                       + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 0, run.stderr)
            let got = try XCTUnwrap(try received("echo-\(status)-\(marker)", atPath: true).first)
            XCTAssertEqual(got["method"] as? String, "GET")
            XCTAssertEqual(got["body_length"] as? Int, 0)
            XCTAssertNil(header(got, "authorization"))
        }
        // --location-trusted: all of it follows.
        let trusted = url("/echo-trusted-\(marker)", host: "www.origin.test")
        run = await CommandRun.run(["get", url("/redirect/308?to=\(trusted)"), "--json", "{}", "-u", "u:p", "--location-trusted", "-o", "/dev/null"]
                                   + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let got = try XCTUnwrap(try received("echo-trusted-\(marker)", atPath: true).first)
        XCTAssertEqual([got["method"] as? String, got["body"] as? String, header(got, "authorization")], ["POST", "{}", "Basic dTpw"])
        // --max-redirs 0 fails on a redirect, as curl's does.
        run = await CommandRun.run(["get", url("/redirect/302?to=/echo"), "--max-redirs", "0"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("--max-redirs 0 follows none"), run.stderr)
    }

    func testRetryFollowsCurlsRulesAndRetryAfter() async throws {
        let key = TestServers.marker("flaky")
        let started = Date()
        var run = await CommandRun.run(["get", url("/flaky/\(key)?fail=2&status=503&retry-after=1"), "--retry", "3", "--retry-delay", "0",
                                        "-w", " %{http_code} %{num_retries}"] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, "ok\n 200 2")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2, "Retry-After: 1 waited twice")
        XCTAssertEqual(try received(key).count, 3, "the origin saw three tries")
        XCTAssertEqual(run.stderr.components(separatedBy: "relayfetch: warning: the server answered 503; retrying in 1 s").count, 3, run.stderr)
        // Not transient: a 404 is not tried again; a 429 beyond the retries is the answer.
        let missing = TestServers.marker("flaky404")
        run = await CommandRun.run(["get", url("/flaky/\(missing)?fail=5&status=404"), "--retry", "3", "-f", "-s"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "", "-s hides the error")
        XCTAssertEqual(try received(missing).count, 1)
        let busy = TestServers.marker("flaky429")
        run = await CommandRun.run(["get", url("/flaky/\(busy)?fail=5&status=429"), "--retry", "1", "--retry-delay", "0.1", "-w", "%{http_code}"]
                                   + Self.ohttpArguments)
        XCTAssertEqual(run.stdoutText, "try again\n429", run.stderr)
        XCTAssertEqual(try received(busy).count, 2)
    }

    func testParallelURLsConfigFilesAndBundledOptions() async throws {
        let marker = TestServers.marker("many")
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("get-\(UUID().uuidString).curlrc")
        defer { try? FileManager.default.removeItem(at: config) }
        let urls = (1...4).map { url("/echo?\(marker)-\($0)") }
        try Data("""
        # a curl config file
        url = "\(urls[2])"
        url \(urls[3])
        json = "{\\"from\\": \\"config\\"}"
        write-out = "\\n%{urlnum}:%{http_code}\\n"
        silent

        """.utf8).write(to: config)
        let run = await CommandRun.run(["get", urls[0], urls[1], "-K", config.path, "-ZsS", "-o", "/dev/null"] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("{") }.count, 3, "three bodies on standard output, the first went to /dev/null")
        XCTAssertEqual(lines.filter { !$0.hasPrefix("{") }, ["1:200", "2:200", "3:200", "4:200"], "in the URLs' order")
        for index in 1...4 {
            let seen = try XCTUnwrap(try received("\(marker)-\(index)").first)
            XCTAssertEqual(seen["body"] as? String, #"{"from": "config"}"#)
        }
    }

    func testBadInputExitsTwoWithOneClearLine() async {
        let cases: [([String], String)] = [
            (["-w", "%{bogus}"], "-w: unknown variable %{bogus}"),
            (["-d", "@/nonexistent/body"], "-d \"/nonexistent/body\": no such readable file"),
            (["-F", "f=@/nonexistent/file"], "\"/nonexistent/file\" is no readable file"),
            (["-T", "/nonexistent/upload"], "-T \"/nonexistent/upload\": no such readable file"),
            (["-K", "/nonexistent/config"], "-K \"/nonexistent/config\": no such readable file"),
            (["-r", "9-1"], "-r needs byte ranges"),
            (["-r", "abc"], "-r needs byte ranges"),
            (["-u", "nopassword"], "-u needs user:password"),
            (["-d", "a=1", "-F", "b=2"], "cannot be combined with another kind of body"),
            (["-I", "-d", "a=1"], "-I (HEAD) and -d (a body) do not go together"),
            (["-X", "BAD METHOD"], "-X needs a method name"),
            (["--retry", "-1"], "--retry needs a whole number"),
            (["-o", "a", "-o", "b"], "2 -o for 1 URL(s)"),
        ]
        for (arguments, expected) in cases {
            let run = await CommandRun.run(["get", "https://origin.test/"] + arguments + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one error line: \(run.stderr)")
        }
    }

    /// The meter appears on a terminal only: under script(1) standard error is one, in a pipe not.
    func testProgressMeterOnlyOnATerminal() throws {
        let arguments = [CommandRun.executable, "get", "https://origin.test/big", "-o", "/dev/null"] + CommandRun.relayArguments
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let terminal = try TestServers.run(["/usr/bin/script", "-qec", quoted + " --progress-bar", "/dev/null"])
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains("100.0%"), terminal.output)
        let pipe = try TestServers.run(arguments + ["--progress-bar"])
        XCTAssertEqual(pipe.status, 0, pipe.output)
        XCTAssertEqual(pipe.output, "", "no meter into a pipe")
    }
}
