import Foundation
import RelayTransport

/// HTTP/3 to the origin over our own QUIC: straight to it (a host no relay covers), or end to
/// end inside a CONNECT-UDP stream through the last of a chain of HTTP/3 relays, which resolves
/// the origin's name; no relay sees or alters the inner transport. Requests to one origin
/// multiplex on one QUIC connection per session (the transport's pool). The response streams
/// into the same `BodyBuffer` as libcurl's transfers, so redirects, cookies, the cache, Referer,
/// limits and time limits work above it as on every route.
struct HTTP3OriginRoute: Route {
    let hops: [RelayEndpoint]
    /// The origin's QUIC endpoint (host as in the URL, its UDP port) and how its certificate is trusted.
    let origin: RelayEndpoint
    /// The origin's port in its URL (TCP), which its Alt-Svc memory is keyed by.
    let originPort: UInt16
    let opener: TunnelOpener
    /// `auto`: the TCP route raced against QUIC (`OriginRace`): it starts after `headStart`, or
    /// once QUIC failed before the request went out; nil (`h3`): QUIC or nothing.
    var fallback: (any Route)?
    var headStart: Double = 0.3

    var hopNames: [String] { hops.map(\.authority) }

    /// Whether a chain can carry QUIC to an origin: every hop HTTP/3 (QUIC) without a TCP side,
    /// so each tunnel carries datagrams. Behind anything else the origin is spoken to over TCP.
    static func carriesQUIC(_ hops: [RelayEndpoint]) -> Bool {
        hops.allSatisfy { $0.relayProtocol == .http3 && $0.fallback == nil }
    }

    func exchange(_ request: HTTPRequest, in session: Session, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        let limit = BodyLimit(maximum: request.maximumBodySize ?? session.configuration.maximumResponseSize)
        let race = fallback.map { _ in OriginRace() }
        let tcp = race.map { race in
            Task { [fallback] in try await tcpAttempt(request, race: race) { try await fallback!.exchange($0, in: session, onBodyChunk: onBodyChunk) } }
        }
        let reader = try await start(request, in: session, limit: limit, reportedTimeLimit: nil, race: race)
        var response: HTTPResponse
        do {
            response = try await reader.buffer.waitForResponse()
        } catch let notUp as HTTP3NotUp {
            guard let race, let tcp else { throw notUp.failure ?? FetchError(.transfer("HTTP/3 was not up")) }
            return try await tcpResult(race: race, tcp: tcp, in: session)
        } catch {
            forgetAlternative(in: session)
            throw error
        }
        let headArrived = Date()
        let waited = response.timings.wait
        let body = ResponseBody(buffer: reader.buffer)
        var data = Data()
        let wanted = (200..<300).contains(response.statusCode)
        for try await chunk in body.chunks {
            data.append(chunk)
            if wanted { onBodyChunk?(request.url, chunk) }
        }
        response.timings.wait = waited
        response.timings.receive = Date().timeIntervalSince(headArrived)
        response.timings.total = max(response.timings.connect, 0) + max(response.timings.ssl, 0) + response.timings.wait + response.timings.receive
        return (data, response)
    }

    func streamingExchange(_ original: HTTPRequest, in session: Session, timeLimit: Double) async throws -> (ResponseBody, HTTPResponse) {
        let request = session.prepared(original)
        let limit = BodyLimit(maximum: request.maximumBodySize ?? .max)
        let race = fallback.map { _ in OriginRace() }
        let tcp = race.map { race in
            Task { [fallback] in
                try await tcpAttempt(original, race: race) { try await fallback!.streamingExchange($0, in: session, timeLimit: timeLimit) }
            }
        }
        let reader = try await start(request, in: session, limit: limit, reportedTimeLimit: timeLimit, race: race)
        let response: HTTPResponse
        do {
            response = try await reader.buffer.waitForResponse()
        } catch let notUp as HTTP3NotUp {
            guard let race, let tcp else { throw notUp.failure ?? FetchError(.transfer("HTTP/3 was not up")) }
            return try await tcpResult(race: race, tcp: tcp, in: session)
        } catch {
            forgetAlternative(in: session)
            throw error
        }
        session.keepCookies(of: response, for: request)
        return (ResponseBody(buffer: reader.buffer), response)
    }

    /// The TCP side of `race`: once QUIC had its head start (or failed), unless QUIC has the
    /// request by then; libcurl sends it only if its connection is up before QUIC's.
    private func tcpAttempt<Answer>(_ request: HTTPRequest, race: OriginRace,
                                    _ run: (HTTPRequest) async throws -> Answer) async throws -> Answer {
        guard await race.waitForTCPTurn(headStart: headStart) else { throw LostOriginRace() }
        var racing = request
        racing.originRace = race
        return try await run(racing)
    }

    /// The origin's Alt-Svc alternative failed (under `h3`: no TCP to fall back to): the error
    /// names it, and the next request tries QUIC on the origin's own port.
    private func forgetAlternative(in session: Session) {
        if origin.port != originPort { session.originAltServices.forget(host: origin.host, port: originPort) }
    }

    /// QUIC did not carry the request: TCP won the race, or QUIC failed before it had the
    /// request (TCP then goes at once). Either way this origin is spoken to over TCP for the rest
    /// of the session, so later requests wait for no head start.
    private func tcpResult<Answer>(race: OriginRace, tcp: Task<Answer, Error>, in session: Session) async throws -> Answer {
        if race.winner != .tcp { race.startTCPNow() }
        session.originAltServices.preferTCP(host: origin.host, port: originPort)
        return try await tcp.value
    }

    /// Starts the exchange on the transport's loop; its response comes through the reader's buffer.
    private func start(_ request: HTTPRequest, in session: Session, limit: BodyLimit, reportedTimeLimit: Double?,
                       race: OriginRace?) async throws -> HTTP3ExchangeReader {
        var message = Self.message(for: request, configuration: session.configuration)
        let buffer = BodyBuffer()
        let loop = opener.loop
        let reader = HTTP3ExchangeReader(request: request, hopNames: hopNames, loop: loop, limit: limit, configuration: session.configuration,
                                         buffer: buffer, reportedTimeLimit: reportedTimeLimit, racing: race != nil,
                                         alternativePort: origin.port == originPort ? nil : origin.port)
        race?.whenTCPWins { [weak reader] in _ = loop.execute { reader?.lostRace() } }
        // -v names the hops and the origin's connection as a TCP route names its tunnel's hops.
        reader.onConnectionSetUp = { [opener] setUp in
            opener.onTunnelOpen?(setUp.hopReports + [HopReport(hop: setUp.origin, connectedAfter: setUp.connected, reusedConnection: false)])
        }
        if let source = message.streamedContent {
            // Each piece read means the ones before it were taken: the idle limit sees the upload move.
            message.streamedContent = { [weak reader] in
                let piece = try await source()
                _ = loop.execute { reader?.uploadProgressed() }
                return piece
            }
        }
        // Weak: the reader is held by the exchange's sink on the loop until it ends.
        buffer.resumeProducer = { [weak reader] in _ = loop.execute { reader?.readerResumed() } }
        buffer.cancelProducer = { [weak reader] in _ = loop.execute { reader?.readerCancelled() } }
        let (builder, hops, origin, connectTimeout) = (opener.builder, hops, origin, session.configuration.connectTimeout)
        let queued = loop.execute {
            reader.exchange = builder.startHTTP3Exchange(message, origin: origin, through: hops, connectTimeout: connectTimeout, sink: reader,
                                                         claim: { race?.claim(.quic) ?? true })
            reader.armTimers()
        }
        guard queued else { throw FetchError(.transfer("the session has ended")) }
        return reader
    }

    /// Header fields that are the connection's business in HTTP/1.1 and are not sent over HTTP/3
    /// (RFC 9114 §4.2); Host becomes :authority.
    private static let connectionFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te"]

    /// Whether `request` takes an encoded answer, decoded on arrival (`ContentDecoder`): as on
    /// TCP (libcurl's CURLOPT_ACCEPT_ENCODING), all but a Range request, whose offsets count
    /// bytes of the identity form.
    static func asksForEncodings(_ request: HTTPRequest) -> Bool {
        !request.headerFields.contains { $0.name.lowercased() == "range" }
    }

    /// `request` as an HTTP/3 request: pseudo-header values, header fields as libcurl would send
    /// them (User-Agent and Accept unless the request has its own) and the content: whole, or
    /// a streamed body read piece by piece as the origin takes it (any size, in bounded memory).
    static func message(for request: HTTPRequest, configuration: Session.Configuration) -> HTTP3OriginRequest {
        let url = request.url
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = (components?.percentEncodedPath).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        let authority = (url.host ?? "") + (url.port.map { ":\($0)" } ?? "")
        var fields = HTTPFields(request.headerFields.filter { !connectionFields.contains($0.name.lowercased()) }
            .map { (name: $0.name.lowercased(), value: $0.value) })
        if !fields.contains(where: { $0.name == "user-agent" }) { fields.insert((name: "user-agent", value: configuration.userAgent), at: 0) }
        if !fields.contains(where: { $0.name == "accept" }) { fields.insert((name: "accept", value: "*/*"), at: 1) }
        if asksForEncodings(request), !fields.contains(where: { $0.name == "accept-encoding" }) {
            fields.append((name: "accept-encoding", value: ContentDecoder.acceptEncoding))
        }
        let content = request.bodyStream == nil ? request.body.map { [UInt8]($0) } : nil
        // A pipe's length is unknown: the stream's end (FIN) ends the content (RFC 9114 §4.1).
        let length = content?.count ?? request.bodyStream?.length
        if let length, !fields.contains(where: { $0.name == "content-length" }) {
            fields.append((name: "content-length", value: String(length)))
        }
        return HTTP3OriginRequest(method: request.method.uppercased(), authority: authority, path: path + query, headerFields: fields,
                                  content: content, streamedContent: request.bodyStream?.pieces())
    }
}
