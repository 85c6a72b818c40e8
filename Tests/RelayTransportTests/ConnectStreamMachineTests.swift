import XCTest
@testable import RelayTransport

/// The CONNECT stream's control state alone: events in, actions out, no nghttp2 or nghttp3.
final class ConnectStreamMachineTests: XCTestCase {
    private func sent(_ protocolName: String = "HTTP/2") -> ConnectStreamMachine {
        var machine = ConnectStreamMachine(protocolName: protocolName)
        XCTAssertEqual(machine.handle(.submitted), [])
        XCTAssertEqual(machine.state, .awaitingAnswer)
        return machine
    }

    private func opened() -> ConnectStreamMachine {
        var machine = sent()
        _ = machine.handle(.status(200))
        XCTAssertEqual(machine.handle(.headersComplete), [.opened])
        return machine
    }

    func testA2xxAnswerOpensAfterInterimOnes() {
        var machine = sent()
        XCTAssertEqual(machine.handle(.status(100)), [])
        XCTAssertEqual(machine.handle(.headersComplete), [], "1xx: wait for the final status")
        XCTAssertFalse(machine.carriesBytes)
        XCTAssertEqual(machine.handle(.status(200)), [])
        XCTAssertEqual(machine.handle(.headersComplete), [.opened])
        XCTAssertTrue(machine.carriesBytes)
        XCTAssertTrue(machine.wasOpened)
        XCTAssertEqual(machine.handle(.headersComplete), [], "trailers open nothing again")
    }

    func testAnyOtherFinalStatusIsARefusalAndAReset() {
        var machine = sent()
        _ = machine.handle(.status(407))
        XCTAssertEqual(machine.handle(.headersComplete), [.refused(status: 407), .reset])
        XCTAssertTrue(machine.isEnded)
        XCTAssertFalse(machine.wasOpened)
        XCTAssertEqual(machine.handle(.closed(resetCode: "CANCEL")), [], "the stream's end after a refusal tells nobody")
        XCTAssertEqual(machine.handle(.closedByUs), [], "reset once")
    }

    func testAConnectionThatTakesNoStreamFailsTheSetup() {
        var machine = sent("HTTP/3")
        XCTAssertEqual(machine.handle(.notAccepted), [.setupFailed("the HTTP/3 connection cannot take new streams")])
        XCTAssertTrue(machine.isEnded)
    }

    func testEndsBeforeTheAnswerFailTheSetup() {
        var finished = sent()
        XCTAssertEqual(finished.handle(.peerFinished), [.setupFailed("relay ended the stream before answering")])
        var closed = sent()
        XCTAssertEqual(closed.handle(.closed(resetCode: nil)), [.setupFailed("relay ended the stream before answering")])
        var reset = sent()
        XCTAssertEqual(reset.handle(.closed(resetCode: "REFUSED_STREAM")), [.setupFailed("relay reset the stream: REFUSED_STREAM")])
        var aborted = sent()
        XCTAssertEqual(aborted.handle(.aborted(code: "H3_REQUEST_REJECTED")), [.setupFailed("relay reset the stream: H3_REQUEST_REJECTED"), .reset])
        var failed = sent()
        XCTAssertEqual(failed.handle(.connectionFailed), [.setupFailedWithConnectionError])
        for machine in [finished, closed, reset, aborted, failed] { XCTAssertTrue(machine.isEnded) }
    }

    func testAnOpenTunnelEndsCleanlyOnceWhateverTheOrder() {
        // HTTP/2: the stream closes with no error.
        var http2 = opened()
        XCTAssertEqual(http2.handle(.closed(resetCode: nil)), [.endOfStream])
        XCTAssertFalse(http2.carriesBytes)
        // HTTP/3: the relay's FIN first (we may still send), then the stream's close.
        var http3 = opened()
        XCTAssertEqual(http3.handle(.peerFinished), [.endOfStream])
        XCTAssertTrue(http3.carriesBytes, "half-closed: our side stays open")
        XCTAssertEqual(http3.handle(.closed(resetCode: nil)), [])
        XCTAssertTrue(http3.isEnded)
    }

    func testResetsAndFailuresOfAnOpenTunnelGoUpOnce() {
        var reset = opened()
        XCTAssertEqual(reset.handle(.closed(resetCode: "CANCEL")), [.failed("relay reset the tunnel: CANCEL")])
        XCTAssertEqual(reset.handle(.connectionFailed), [])
        var aborted = opened()
        XCTAssertEqual(aborted.handle(.aborted(code: "H3_INTERNAL_ERROR")), [.failed("relay reset the tunnel: H3_INTERNAL_ERROR"), .reset])
        XCTAssertEqual(aborted.handle(.aborted(code: "H3_INTERNAL_ERROR")), [.reset], "a later abort only resets")
        var failed = opened()
        XCTAssertEqual(failed.handle(.connectionFailed), [.failedWithConnectionError])
        XCTAssertEqual(failed.handle(.closed(resetCode: nil)), [])
    }

    func testClosingByUsResetsOnceAndSilencesTheRest() {
        var machine = opened()
        XCTAssertEqual(machine.handle(.closedByUs), [.reset])
        XCTAssertFalse(machine.carriesBytes)
        XCTAssertTrue(machine.wasOpened)
        XCTAssertEqual(machine.handle(.closedByUs), [])
        XCTAssertEqual(machine.handle(.closed(resetCode: "CANCEL")), [])
        XCTAssertEqual(machine.handle(.peerFinished), [])
        XCTAssertEqual(machine.handle(.connectionFailed), [])
    }
}
