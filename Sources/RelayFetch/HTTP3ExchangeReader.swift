import Foundation
import RelayTransport

/// Joins one HTTP/3 exchange (the transport's loop) to a `BodyBuffer` (the reader), as
/// `CurlTransfer` joins a libcurl transfer: the head becomes an `HTTPResponse`, the content
/// goes into the buffer within the body's limits, and the idle and total time limits run here.
/// A full buffer pauses the stream (QUIC flow control then holds the origin back) and keeps the
/// piece it could not take until the reader makes room. Every failure is told as a `FetchError`
/// naming the origin and the hops.
// @unchecked: every var is touched on the loop only (the sink's events, the timers, and the
// buffer's callbacks, which hop onto the loop); `buffer` is Sendable.
final class HTTP3ExchangeReader: HTTP3ResponseSink, @unchecked Sendable {
    let buffer: BodyBuffer
    private let request: HTTPRequest
    private let hopNames: [String]
    private let loop: EventLoop
    private var limit: BodyLimit
    private let idleTimeout: Double
    private let timeLimit: Double
    private let reportedTimeLimit: Double?
    /// Whether a TCP attempt races this one (`OriginRace`): a failure before the request went
    /// out is then `HTTP3NotUp`, and the request goes over TCP.
    private let racing: Bool
    /// The UDP port of the origin's Alt-Svc alternative, when QUIC goes there rather than to the origin's own port.
    private let alternativePort: UInt16?
    /// Set once the exchange started (on the loop).
    var exchange: HTTP3OriginExchange?
    private var pending: [UInt8]?
    private var outcome: Result<Void, Error>?
    private var finished = false
    private var lastActivity = IdleClock.now()
    private let started = IdleClock.now()
    private var headAt: Double?
    private var idleTimer: UInt64?
    private var deadlineTimer: UInt64?
    /// Decodes the body's Content-Encoding (as libcurl does on TCP); nil for an identity body,
    /// or a Range request, which asked for none.
    private var decoder: ContentDecoder?
    /// How the connection the request went on was set up; nil when it was open already.
    private var setUp: HTTP3ConnectionSetUp?
    /// Hears of a connection this exchange set up (for `-v`), on the loop.
    var onConnectionSetUp: ((HTTP3ConnectionSetUp) -> Void)?
    /// Set when the response's type is not wanted (`acceptedMediaTypes`): the body is not read.
    private(set) var bodySkipped = false

    /// `reportedTimeLimit`: the request's whole time limit, told when the time left runs out
    /// mid-body (a streamed body); nil: the time left.
    init(request: HTTPRequest, hopNames: [String], loop: EventLoop, limit: BodyLimit, configuration: Session.Configuration, buffer: BodyBuffer,
         reportedTimeLimit: Double?, racing: Bool, alternativePort: UInt16? = nil) {
        self.reportedTimeLimit = reportedTimeLimit
        self.alternativePort = alternativePort
        self.racing = racing
        self.request = request
        self.hopNames = hopNames
        self.loop = loop
        self.limit = limit
        self.buffer = buffer
        idleTimeout = configuration.idleTimeout
        timeLimit = min(configuration.requestTimeout, request.timeout ?? .infinity)
    }

    private var origin: String { "\(request.url.host ?? ""):\(request.url.portOrDefault)" }

    /// Arms the timers (on the loop, once the exchange started).
    func armTimers() {
        guard !finished else { return }
        if timeLimit.isFinite {
            deadlineTimer = loop.schedule(after: max(0.001, timeLimit)) { [self] in fail(FetchError(.timedOut(reportedTimeLimit ?? timeLimit))) }
        }
        scheduleIdleCheck()
    }

    /// TCP's connection was up first and took the request: QUIC gives it up (it was not sent).
    func lostRace() {
        if !finished, exchange?.withdrawIfNotSent() == true { complete(.failure(HTTP3NotUp(failure: nil))) }
    }

    /// A piece of the request body went out (the origin acknowledged the ones before it): an
    /// upload is activity, as with libcurl, though no response byte comes back until it ends.
    func uploadProgressed() { lastActivity = IdleClock.now() }

    private func scheduleIdleCheck() {
        guard idleTimeout.isFinite, !finished else { return }
        idleTimer = loop.schedule(after: min(1, idleTimeout)) { [self] in
            idleTimer = nil
            // Silence while the reader holds the stream paused is not the origin's, nor is it
            // before the request went out (the connect timeout covers that), as with libcurl.
            if pending != nil || exchange?.requestSent == false { lastActivity = IdleClock.now() }
            if IdleClock.now() - lastActivity > idleTimeout {
                return fail(FetchError(.idleTimeout(seconds: idleTimeout, peer: origin, route: hopNames, stalled: nil)))
            }
            scheduleIdleCheck()
        }
    }

    /// The reader made room: the piece held back goes in, and the stream reads again.
    func readerResumed() {
        guard let piece = pending, !finished else { return }
        pending = nil
        offer(piece)
        if pending == nil {
            exchange?.setReadingPaused(false)
            if let outcome { complete(outcome) }
        }
    }

    /// The reader went away: the stream is cancelled.
    func readerCancelled() {
        guard !finished else { return }
        exchange?.cancel()
        complete(.failure(FetchError(.transfer("the reader cancelled the transfer"))))
    }

    // MARK: HTTP3ResponseSink

    func http3Connected(_ setUp: HTTP3ConnectionSetUp?) {
        self.setUp = setUp
        if let setUp { onConnectionSetUp?(setUp) }
    }

    func http3ReceivedHead(status: Int, fields: [(name: String, value: String)]) {
        guard !finished else { return }
        lastActivity = IdleClock.now()
        headAt = lastActivity
        var head = HTTPResponse(statusCode: status, httpVersion: "HTTP/3", headerFields: HTTPFields(fields), url: request.url, relayHops: hopNames)
        head.timings = timings(through: lastActivity)
        head.relayHopTimings = setUp?.hopReports.map(RelayHopTiming.init) ?? []
        if !request.wantsBody(status: status, contentType: head.value(forHeaderField: "Content-Type")) {
            bodySkipped = true
            head.bodySkipped = true
            buffer.receivedResponse(head)
            exchange?.cancel()
            return complete(.success(()))
        }
        guard limit.admits(head, method: request.method.uppercased()) else { return fail(tooLarge()) }
        if HTTP3OriginRoute.asksForEncodings(request), let coding = head.value(forHeaderField: "Content-Encoding") {
            decoder = ContentDecoder(contentEncoding: coding)
        }
        buffer.receivedResponse(head)
    }

    func http3Received(_ received: [UInt8]) {
        guard !finished else { return }
        lastActivity = IdleClock.now()
        var bytes = received
        if let decoder {
            do {
                bytes = try decoder.decode(received, atMost: limit.room)
            } catch {
                return fail(error.tooLarge ? tooLarge() : FetchError(.transfer("\(error) (origin \(origin) over HTTP/3)")))
            }
            if bytes.isEmpty { return }
        }
        guard limit.fits(bytes.count), limit.take(bytes.count, from: request.byteBudget) else { return fail(tooLarge()) }
        if pending != nil {
            pending! += bytes
        } else {
            offer(bytes)
        }
    }

    func http3Finished(_ result: Result<Void, RelayError>) {
        guard !finished else { return }
        switch result {
        case .success:
            if pending != nil { outcome = .success(()) } else { complete(.success(())) }
        case .failure(let error):
            // No QUIC connection carried the request: with a fallback, it goes over TCP.
            if racing, exchange?.requestSent != true { return complete(.failure(HTTP3NotUp(failure: fetchError(error)))) }
            complete(.failure(fetchError(error)))
        }
    }

    // MARK: internals

    private func offer(_ bytes: [UInt8]) {
        let offered = bytes.withUnsafeBytes { buffer.offer($0.baseAddress!, count: $0.count) }
        switch offered {
        case .taken:
            buffer.flush()
        case .pause:
            pending = bytes
            exchange?.setReadingPaused(true)
            buffer.flush()
        case .failed:
            exchange?.cancel()
            complete(.failure(FetchError(.transfer("the body could not be written"))))
        }
    }

    /// The transport's error in the session's terms: a relay hop's as it is; the origin's
    /// (hop 0) told with the hops it came through.
    private func fetchError(_ error: RelayError) -> FetchError {
        guard error.hop.index == 0 else { return FetchError(relay: error) }
        let via = hopNames.isEmpty ? "" : " through " + hopNames.indices.map { "hop \($0 + 1) (\(hopNames[$0]))" }.joined(separator: ", ")
        let at = alternativePort.map { " at its Alt-Svc alternative h3=\":\($0)\"" } ?? ""
        return FetchError(.transfer("origin \(origin) over HTTP/3\(at)\(via): \(error.cause)"))
    }

    private func tooLarge() -> FetchError {
        let budget = request.byteBudget.flatMap { $0.isExhausted ? $0.limit : nil }
        return FetchError(.responseTooLarge(limit: budget ?? limit.maximum))
    }

    private func fail(_ error: FetchError) {
        guard !finished else { return }
        exchange?.cancel()
        complete(.failure(error))
    }

    private func complete(_ result: Result<Void, Error>) {
        guard !finished else { return }
        finished = true
        if let idleTimer { loop.cancelTimer(idleTimer) }
        if let deadlineTimer { loop.cancelTimer(deadlineTimer) }
        pending = nil
        exchange = nil  // it holds the stream, which holds this reader: the cycle ends here
        buffer.finish(result)
    }

    /// HAR's phases as far as this side sees them: on a connection this exchange set up, the
    /// tunnels through the relays (`connect`) and the QUIC handshake, transport and TLS at once
    /// (`ssl`, which HAR counts inside `connect` too); then the wait for the head, and the body.
    func timings(through now: Double) -> HTTPTimings {
        var timings = HTTPTimings()
        let head = headAt ?? now
        var connected = 0.0
        if let setUp {
            timings.connect = max(setUp.handshakeStarted, 0)
            timings.ssl = max(setUp.connected - setUp.handshakeStarted, 0)
            connected = setUp.connected
        }
        timings.wait = max(0, head - started - connected)
        timings.receive = max(0, now - head)
        timings.total = connected + timings.wait + timings.receive
        return timings
    }
}

/// The request never went out over QUIC: the connection failed (`failure`) or TCP won the race
/// (nil); the route's TCP attempt carries it instead.
struct HTTP3NotUp: Error {
    let failure: FetchError?
}
