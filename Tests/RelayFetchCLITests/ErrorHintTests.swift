import Foundation
import XCTest
@testable import RelayFetch
@testable import RelayFetchCLI
import RelayTransport

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
}
