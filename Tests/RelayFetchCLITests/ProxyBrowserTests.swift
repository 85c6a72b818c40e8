import Foundation
import XCTest
import RelayFetchTestSupport

/// Headless Chromium through `relayfetch proxy` and two relays, loading a page whose content
/// and subresources its script creates (fetch(), XHR, a script-inserted image): the DOM shows
/// the script ran and what it loaded, the origin saw every request from relay B only, and relay
/// B's log has the tunnels.
final class ProxyBrowserTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
        guard ChromiumDump.isInstalled else { throw TestServerError(description: "chromium is missing: run scripts/setup.sh") }
    }

    static let page = """
    <!doctype html>
    <html><head><title>built by script</title><link rel="icon" href="data:,"></head>
    <body><p id="state">static</p>
    <script>
    fetch("/fetched.txt").then(r => r.text()).then(t => {
      const p = document.createElement("p"); p.id = "fetched"; p.textContent = t.trim(); document.body.appendChild(p);
    });
    const xhr = new XMLHttpRequest();
    xhr.open("GET", "/xhr.txt");
    xhr.onload = () => { const p = document.createElement("p"); p.id = "xhr"; p.textContent = xhr.responseText.trim(); document.body.appendChild(p); };
    xhr.send();
    const image = new Image();
    image.onload = () => { image.id = "image-loaded"; image.dataset.width = String(image.naturalWidth); };
    image.src = "/pixel.gif";
    document.body.appendChild(image);
    document.getElementById("state").textContent = "script ran";
    </script></body></html>
    """

    /// A 1x1 GIF.
    static let pixel = Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00,
                             0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
                             0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])

    func testChromiumRendersAScriptBuiltPageThroughTwoRelays() throws {
        let origin = try PlainOrigin(files: ["page.html": Data(Self.page.utf8), "fetched.txt": Data("text from fetch\n".utf8),
                                             "xhr.txt": Data("text from xhr\n".utf8), "pixel.gif": Self.pixel])
        let proxy = try ProxyProcess(CommandRun.twoHopRelayArguments)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let target = "\(PlainOrigin.address):\(origin.server.port)"
        let relayBefore = try TestServers.logLines(TestServers.relayBLog, containing: target).count
        // <-loopback>: Chromium would otherwise reach a loopback origin without its proxy.
        let result = try ProxyProcess.run(ChromiumDump.executable, [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
            "--proxy-server=socks5://\(proxy.socks)", "--proxy-bypass-list=<-loopback>",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--virtual-time-budget=8000", "--dump-dom", "\(origin.url)/page.html",
        ])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("<p id=\"state\">script ran</p>"), result.output)
        XCTAssertTrue(result.output.contains("<p id=\"fetched\">text from fetch</p>"), result.output)
        XCTAssertTrue(result.output.contains("<p id=\"xhr\">text from xhr</p>"), result.output)
        XCTAssertTrue(result.output.contains("id=\"image-loaded\"") && result.output.contains("data-width=\"1\""), result.output)
        let requests = try origin.requests()
        XCTAssertEqual(Set(requests.map(\.target)), ["/page.html", "/fetched.txt", "/xhr.txt", "/pixel.gif"])
        XCTAssertEqual(Set(requests.map(\.peer)), ["127.0.0.12"], "a request reached the origin other than from relay B")
        let relayLines = try TestServers.waitForLogLines(TestServers.relayBLog, containing: target, skipping: relayBefore)
        XCTAssertFalse(relayLines.isEmpty, "relay B logged no tunnel to the origin")
        XCTAssertTrue(relayLines.allSatisfy { $0[SquidLogField.clientAddress.rawValue] == "127.0.0.11" }, "relay B was reached other than through relay A")
        let logged = try proxy.connectionLines()
        XCTAssertFalse(logged.isEmpty)
        XCTAssertTrue(logged.allSatisfy { $0.contains(" socks5 chain 127.0.0.11:3129>127.0.0.12:3129 ") }, logged.joined(separator: "\n"))
    }
}
