import Foundation
import RelayTransport
internal import CCurl

/// A route that libcurl carries: what a `CurlTransfer` asks of its route while it sets up, runs
/// and ends. Every requirement past `configure` has a default for routes that need nothing there.
protocol CurlRoute: Route {
    /// True where only libcurl sees the origin's TLS stream end (direct, or libcurl's own
    /// proxy), so only it can tell a close_notify from a cut; through our tunnels the transport tells.
    var libcurlSpeaksOriginTLS: Bool { get }

    /// Where libcurl should connect for `url`, resolved by the session, so that libcurl looks
    /// nothing up itself; [] when libcurl needs no address (or may ask the system).
    func pinnedAddresses(for url: URL, in session: Session) async throws(FetchError) -> [String]

    /// Sets the easy handle's options that make `transfer` take this route.
    func configure(_ transfer: CurlTransfer, configuration: Session.Configuration, pinnedAddresses: [String])

    /// The socket for a connection libcurl opens, for a route that supplies its sockets.
    func openSocket(for transfer: CurlTransfer) -> curl_socket_t

    /// Takes a header line that is not the origin's (a relay's answer to a CONNECT that libcurl
    /// passes on); false for the origin's lines.
    func takeHeaderLine(_ line: String, of transfer: CurlTransfer) -> Bool

    /// Called once libcurl has reported `transfer` done, whatever the outcome.
    func transferEnded(_ transfer: CurlTransfer)

    /// libcurl's failure `code` told as a hop's, when a hop failed; nil to tell it as the origin's.
    func failure(_ code: CURLcode, text: String, of transfer: CurlTransfer) -> FetchError?

    /// How the tunnel under a failed `transfer` ended, when the transfer did not open it
    /// (a reused or multiplexed connection).
    func tunnelEnd(under transfer: CurlTransfer) -> TunnelEnd?

    /// The hop a cut origin TLS stream came through, where libcurl speaks the origin's TLS.
    var lastHop: HopDescription? { get }

    /// Whether each hop answers a liveness probe (nil: cannot be asked), to tell who stalled;
    /// nil when the route has no hops.
    func probeHops(in session: Session, timeout: Double) async -> [Bool?]?
}

extension CurlRoute {
    func openSocket(for transfer: CurlTransfer) -> curl_socket_t { rf_curl_socket_bad() }
    func takeHeaderLine(_ line: String, of transfer: CurlTransfer) -> Bool { false }
    func transferEnded(_ transfer: CurlTransfer) {}
    func failure(_ code: CURLcode, text: String, of transfer: CurlTransfer) -> FetchError? { nil }
    func tunnelEnd(under transfer: CurlTransfer) -> TunnelEnd? { nil }
    var lastHop: HopDescription? { nil }
    func probeHops(in session: Session, timeout: Double) async -> [Bool?]? { nil }

    func exchange(_ request: HTTPRequest, in session: Session, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        let pins = try await pinnedAddresses(for: request.url, in: session)
        let transfer = try CurlTransfer(request: request, route: self, configuration: session.configuration, pinnedAddresses: pins)
        transfer.onBodyChunk = onBodyChunk
        do {
            return try await session.engine.perform(transfer)
        } catch let error as FetchError {
            throw await session.diagnosed(error, route: self)
        }
    }

    func streamingExchange(_ original: HTTPRequest, in session: Session, timeLimit: Double) async throws -> (ResponseBody, HTTPResponse) {
        let request = session.prepared(original)
        let buffer = BodyBuffer()
        let pins = try await pinnedAddresses(for: request.url, in: session)
        let transfer = try CurlTransfer(request: request, route: self, configuration: session.configuration, pinnedAddresses: pins, sink: buffer)
        let engine = session.engine
        // Weak: the buffer outlives the transfer (the reader holds it), the engine holds the transfer.
        buffer.resumeProducer = { [weak transfer] in if let transfer { engine.resume(transfer) } }
        buffer.cancelProducer = { [weak transfer] in if let transfer { engine.cancel(transfer) } }
        Task {
            do {
                _ = try await engine.perform(transfer)
                buffer.finish(.success(()))
            } catch let error as FetchError {
                if case .timedOut = error.code { return buffer.finish(.failure(FetchError(.timedOut(timeLimit)))) }
                buffer.finish(.failure(await session.diagnosed(error, route: self)))
            } catch {
                buffer.finish(.failure(error))
            }
        }
        let response = try await buffer.waitForResponse()
        session.keepCookies(of: response, for: request)
        return (ResponseBody(buffer: buffer), response)
    }
}
