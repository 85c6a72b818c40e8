import Foundation
import XCTest
@testable import RelayFetch
@testable import RelayFetchCLI
import RelayTransport
import Locking

/// The CLI's hint for a relay that wants credentials comes from the failure's type (a 407
/// refusal), not only from a phrase of its text; other refusals get none.
final class ErrorHintTests: XCTestCase {
    private func refusal(_ status: Int) -> FetchError {
        FetchError(relay: RelayError(hop: HopDescription(index: 1, endpoint: "relay.test:443", protocolName: "HTTP/2"),
                                     cause: .tunnelRefused(status: status, reason: "refused")))
    }

    func testA407RefusalGetsTheCredentialsHintAndA403None() {
        XCTAssertTrue(ErrorHint.text(refusal(407)).hasSuffix("; give the relay's credentials with --relay-header after its --relay"),
                      ErrorHint.text(refusal(407)))
        XCTAssertFalse(ErrorHint.text(refusal(403)).contains("--relay-header"), ErrorHint.text(refusal(403)))
        XCTAssertEqual(ErrorHint.text("plain text"), "plain text")
    }

    /// A chain whose last hop cannot carry UDP: the transport's text names no option, the
    /// command's adds the one that changes it.
    func testAChainWithoutUDPIsSaidWithoutAFlagAndHintedByTheCommand() throws {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let hop = RelayEndpoint(host: "relay.test", port: 443, relayProtocol: .http2)
        let failed = expectation(description: "the flow fails")
        let said = Locked("")
        var keep: [AnyObject] = []
        loop.execute {
            let builder = RelayChainBuilder(loop: loop)
            keep.append(builder)
            // Refused before any connection: an HTTP/2 last hop opens no CONNECT-UDP flow.
            builder.openDatagramFlow(hops: [hop], to: TunnelTarget(host: "origin.test", port: 53), connectTimeout: 1) { result in
                if case .failure(let error) = result { said.withLock { $0 = "\(FetchError(relay: error))" } }
                failed.fulfill()
            }
        }
        wait(for: [failed], timeout: 5)
        loop.execute { keep.removeAll() }
        let text = said.withLock { $0 }
        XCTAssertTrue(text.contains("cannot carry UDP"), text)
        XCTAssertFalse(text.contains("--"), "a library error names no option: \(text)")
        XCTAssertTrue(ErrorHint.text(text).hasSuffix("; give the last hop --relay-protocol h3"), ErrorHint.text(text))
    }
}
