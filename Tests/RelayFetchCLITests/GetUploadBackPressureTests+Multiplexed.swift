import Foundation
import XCTest
import RelayFetchTestSupport

/// The same bound through HTTP/2 and HTTP/3 relays, one hop and two: each CONNECT stream counts
/// the bytes its relay's flow control holds back, plus what its connection queued below (the
/// outer CONNECT-UDP stream's backlog, for QUIC to the second hop), and the bridge stops reading
/// libcurl's socket past 1 MiB. Before, those streams counted nothing and a writer got 54 MB
/// (HTTP/2) to 70 MB (HTTP/3) ahead of an origin reading 640 KB/s in 4 s, and grew at pipe speed.
///
/// The HTTP/3 relay is the test servers' aioquic relay script on an address of this test's
/// (127.0.6.1), with `--hold-credit`: aioquic alone raises a stream's window as bytes arrive,
/// however slowly the target takes them, so the relay itself, not the client, would hold the
/// backlog. The two-hop HTTP/3 chain reaches it through relay A's CONNECT-UDP.
extension GetUploadBackPressureTests {
    /// The options for one relay hop, with its token and the test CA.
    private func hop(_ url: String, _ relayProtocol: String, token: String) -> [String] {
        ["--relay", url, "--relay-protocol", relayProtocol, "--relay-header", "Proxy-Authorization: \(token)", "--relay-cacert", TestServers.caFile]
    }

    func testPipedUploadsThroughHTTP2AndHTTP3RelaysAreReadNoFasterThanTheOriginTakesThem() throws {
        let relay = try HTTP3RelayInstance(host: "127.0.6.1", holdCredit: true)
        defer { relay.stop() }
        let h2A = hop(TestServers.http2RelayAURL.absoluteString, "h2", token: TestServers.relayToken)
        let h2B = hop(TestServers.http2RelayBURL.absoluteString, "h2", token: TestServers.relayBToken)
        let h3A = hop("https://127.0.0.11:4433", "h3", token: TestServers.relayToken)
        let h3Own = hop("https://\(relay.host):\(relay.port)", "h3", token: "Bearer relay-token-B")
        let routes = [("HTTP/2", h2A), ("HTTP/2, HTTP/2", h2A + h2B), ("HTTP/3", h3Own), ("HTTP/3, HTTP/3 (QUIC in CONNECT-UDP)", h3A + h3Own)]
        for (name, route) in routes {
            let written = try bytesWritten(route: route + ["--cacert", TestServers.caFile], readDelay: 100, seconds: 6)
            // The origin takes about 4 MB in 6 s; the kernel's socket buffers on each loopback
            // connection of the route hold some MB more. At pipe speed it would be hundreds.
            XCTAssertLessThan(written, 40 << 20, "\(name): the writer got \(written) bytes ahead: standard input was not read at the origin's pace")
            print("\(name): the writer got \(written) bytes ahead in 6 s")
        }
        XCTAssertEqual(try relay.lines().filter { $0.count > HTTP3RelayLogField.method.rawValue && $0[HTTP3RelayLogField.method.rawValue] == "CONNECT" }.count, 2, "both HTTP/3 routes reached the relay")
    }
}
