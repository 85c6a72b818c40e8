#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RelayTransport
internal import CCurl

/// One request/response exchange on one libcurl easy handle (no redirects: the session follows
/// them). For a relayed host, libcurl gets a socket from the session's tunnel opener instead of
/// one of its own, and connects it to a local listener rather than resolving the name.
// @unchecked: built on the caller's thread, then touched only by the curl thread (the easy
// handle, the vars, `continuation`) once `CurlEngine.perform` hands it over under the engine's lock.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let request: HTTPRequest
    let route: Route
    /// Largest body accepted: the request's `maximumBodySize`, else (for a buffered body) the
    /// session's `maximumResponseSize`; a streamed body has no limit of its own.
    let maximumSize: Int
    var lists: [UnsafeMutablePointer<curl_slist>?] = []
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var requestBody: [UInt8] = []

    // Written on the curl thread during the transfer.
    fileprivate(set) var body = Data()
    fileprivate(set) var headerLines: [String] = []
    fileprivate(set) var exceededLimit = false
    /// Body bytes received so far (counted also when they go to `sink` rather than `body`).
    private(set) var received = 0
    /// Where a 206's range starts in the resource: those bytes count toward `maximumSize` too,
    /// which limits the whole file a resumed download makes, not just the part it fetches.
    private var rangeStart = 0
    /// Where the body goes when it is streamed (`Session.bytes(for:)`) instead of collected.
    let sink: BodyBuffer?
    /// True while libcurl holds the transfer paused for a reader that is behind (curl thread).
    var pausedForReader = false
    /// Set when the response's header said its body is not wanted (`acceptedMediaTypes`).
    fileprivate(set) var bodySkipped = false

    /// The status of the tunnel this transfer opened (curl thread); nil on a reused connection.
    private var tunnelStatus: TunnelStatus?
    let started = CurlTransfer.now()
    /// On a `curlProxy` route (curl thread): the relay's answer to the CONNECT, once it came,
    /// and the hop's report once the tunnel opened.
    var connectAnswer: (status: Int, reason: String)?
    var proxyHopReports: [HopReport] = []
    /// On a direct or `curlProxy` route, for a body that ends with the connection: whether the
    /// origin's TLS stream ended with close_notify (set by OpenSSL's callback on the curl thread).
    private var originCloseNotify: CloseNotifyFlag?

    // The idle clock (curl thread): monotonic seconds of the last byte received.
    private let idleTimeout: Double
    let maximumTime: Double
    var lastActivity = CurlTransfer.now()
    fileprivate(set) var idleTimedOut = false
    /// Set once libcurl has started sending the request; asked of libcurl only until then.
    private var requestSent = false

    var continuation: CheckedContinuation<(Data, HTTPResponse), Error>?
    /// Receives the body of a successful (2xx) final response as it arrives, on the curl thread.
    var onBodyChunk: (@Sendable (URL, Data) -> Void)?

    /// With a `sink`, the body streams into it (and libcurl reads in large pieces); without one
    /// it is collected in `body`. `pinnedAddresses`: on a direct route, where the host is
    /// (resolved by the session's encrypted resolver), so libcurl resolves nothing itself; on a
    /// `curlProxy` route, where the relay is.
    init(request: HTTPRequest, route: Route, configuration: Session.Configuration, pinnedAddresses: [String] = [],
         sink: BodyBuffer? = nil) throws(FetchError) {
        guard let easy = curl_easy_init() else { throw FetchError(.transfer("libcurl could not create a handle")) }
        self.easy = easy
        self.request = request
        self.route = route
        self.sink = sink
        self.maximumSize = request.maximumBodySize ?? (sink == nil ? configuration.maximumResponseSize : .max)
        self.idleTimeout = configuration.idleTimeout
        // Infinite means none (libcurl's 0); a finite limit is kept above 0 so it is not taken for none.
        let limit = min(configuration.requestTimeout, request.timeout ?? .infinity)
        self.maximumTime = limit.isFinite ? max(0.001, min(limit, 86_400 * 365)) : 0
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        configure(configuration, pinnedAddresses: pinnedAddresses)
        if let stream = request.bodyStream { try configureUpload(stream) }
    }

    deinit {
        curl_easy_cleanup(easy)
        for list in lists { curl_slist_free_all(list) }
        errorBuffer.deallocate()
    }

    /// RF_CURL_DEBUG set: libcurl tells every step on stderr. Read once: building the
    /// environment dictionary for every transfer costs more than the rest of its setup.
    private static let debugging = ProcessInfo.processInfo.environment["RF_CURL_DEBUG"] != nil

    private func configure(_ configuration: Session.Configuration, pinnedAddresses: [String]) {
        let me = Unmanaged.passUnretained(self).toOpaque()  // the engine holds the transfer while curl runs it
        setString(CURLOPT_URL, request.url.absoluteString)
        setLong(CURLOPT_NOSIGNAL, 1)
        if Self.debugging { setLong(CURLOPT_VERBOSE, 1) }
        setString(CURLOPT_PROXY, "")          // never a proxy from the environment
        setString(CURLOPT_NOPROXY, "*")
        setLong(CURLOPT_FOLLOWLOCATION, 0)
        setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        setLong(CURLOPT_PIPEWAIT, 1)  // wait for a connection that may multiplex rather than open another tunnel
        setLong(CURLOPT_SSL_VERIFYPEER, 1)
        setLong(CURLOPT_SSL_VERIFYHOST, 2)
        setString(CURLOPT_PROTOCOLS_STR, "http,https")
        // Every encoding libcurl can decode, except on a Range request: its offsets count bytes
        // of the identity form, and a compressed answer could not be joined to the bytes held.
        if !request.headerFields.contains(where: { $0.name.lowercased() == "range" }) { setString(CURLOPT_ACCEPT_ENCODING, "") }
        setString(CURLOPT_USERAGENT, configuration.userAgent)
        if let caFile = configuration.originCertificateAuthorityFile { setString(CURLOPT_CAINFO, caFile) }
        setLong(CURLOPT_TIMEOUT_MS, Int(maximumTime * 1000))
        // A streamed body is read from the tunnel in large pieces: fewer reads and callbacks.
        if sink != nil { setLong(CURLOPT_BUFFERSIZE, 512 * 1024) }
        setLong(CURLOPT_NOPROGRESS, 0)
        _ = rf_curl_easy_setopt_xferinfo(easy, curlProgress)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_XFERINFODATA, me)
        setLong(CURLOPT_CONNECTTIMEOUT_MS, Int((configuration.connectTimeout + 5) * 1000))
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = rf_curl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
        _ = rf_curl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me)

        let method = request.method.uppercased()
        if method == "HEAD" {
            setLong(CURLOPT_NOBODY, 1)
        } else if method != "GET" || request.body != nil || request.bodyStream != nil {
            setString(CURLOPT_CUSTOMREQUEST, method)
        }
        if let body = request.body {
            requestBody = [UInt8](body)
            setLong(CURLOPT_POST, 1)
            // The size first: without it libcurl would take the (binary) body for a C string.
            _ = rf_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(requestBody.count))
            _ = requestBody.withUnsafeBufferPointer { rf_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        for field in request.headerFields { headers = curl_slist_append(headers, "\(field.name): \(field.value)") }
        if headers != nil {
            lists.append(headers)
            _ = rf_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
        }

        if case .direct = route, let host = request.url.host {
            let port = request.url.portOrDefault
            pin(host, port: port, to: configuration.directHostAddress(host: host, port: port).map { [$0] } ?? pinnedAddresses)
        }
        if route.libcurlSpeaksOriginTLS {
            // libcurl's TLS takes a cut stream for the end of a body that ends with the connection:
            // each TLS connection is watched for the origin's close_notify instead.
            _ = rf_curl_easy_setopt_sslctx(easy, curlWatchTLSContext)
        }
        if case .curlProxy(let proxy) = route {
            configureProxy(proxy, relayAddresses: pinnedAddresses, connectTimeout: configuration.connectTimeout)
        }
        if case .relayed(let relayed) = route {
            // libcurl connects to the session's loopback listener under the route's own name
            // (pinned to 127.0.0.1: no lookup), never to the origin, and so never resolves the
            // origin's name; TLS and Host still use the URL's host name. The name is the route's
            // so that libcurl's per-host connection limit counts each origin apart.
            let alias = relayed.opener.connectAlias(hops: relayed.hops, target: relayed.target)
            let port = Int(relayed.opener.listenerPort)
            pin(alias, port: port, to: ["127.0.0.1"])
            let connectTo = curl_slist_append(nil, "::\(alias):\(port)")
            lists.append(connectTo)
            _ = rf_curl_easy_setopt_slist(easy, CURLOPT_CONNECT_TO, connectTo)
            // Loopback TCP with Nagle on holds a request's second write (a POST body after its
            // headers) until the first is acknowledged, up to a delayed-ACK timeout (40 ms).
            setLong(CURLOPT_TCP_NODELAY, 1)
            _ = rf_curl_easy_setopt_opensocket(easy, curlOpenTunnelSocket)
            _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, me)
        }
    }

    /// Puts `host:port` at `addresses` in libcurl's name cache (IPv6 literals bracketed), so libcurl
    /// looks nothing up; nothing when there are none.
    func pin(_ host: String, port: Int, to addresses: [String]) {
        guard !addresses.isEmpty else { return }
        let list = addresses.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 }.joined(separator: ",")
        let entry = curl_slist_append(nil, "\(host):\(port):\(list)")
        lists.append(entry)
        _ = rf_curl_easy_setopt_slist(easy, CURLOPT_RESOLVE, entry)
    }

    func setLong(_ option: CURLoption, _ value: Int) { _ = rf_curl_easy_setopt_long(easy, option, value) }
    func setString(_ option: CURLoption, _ value: String) { _ = rf_curl_easy_setopt_str(easy, option, value) }

    /// Takes a piece of the body; returns what libcurl's write callback answers: `count`, 0 to
    /// stop the transfer, or CURL_WRITEFUNC_PAUSE while the reader is behind.
    fileprivate func appendBody(_ pointer: UnsafePointer<CChar>, _ count: Int) -> Int {
        lastActivity = Self.now()
        if received + count > maximumSize - rangeStart {
            exceededLimit = true
            return 0
        }
        if let sink {
            switch sink.offer(pointer, count: count) {
            case .pause:
                pausedForReader = true
                return rf_curl_writefunc_pause()
            case .failed:
                return 0  // the file the body went into refused it (the buffer keeps the error)
            case .taken:
                lastActivity = Self.now()  // a write into a file may have taken a while
            }
            // Taken once the reader accepted the piece (a paused one comes again): a streamed body
            // draws on a shared budget too, and stops at the piece that overdraws it.
            if request.byteBudget?.take(count) == false {
                exceededLimit = true
                return 0
            }
            received += count
            return count
        }
        if request.byteBudget?.take(count) == false {
            exceededLimit = true
            return 0
        }
        received += count
        pointer.withMemoryRebound(to: UInt8.self, capacity: count) { body.append($0, count: count) }
        if let onBodyChunk, Self.isSuccessStatusLine(headerLines.first) {
            onBodyChunk(request.url, Data(bytes: pointer, count: count))
        }
        return count
    }

    /// Takes one header line; false stops the transfer: at the end of a header whose body the
    /// request does not want, or that declares a length over the limit.
    fileprivate func appendHeader(_ pointer: UnsafePointer<CChar>, _ count: Int) -> Bool {
        lastActivity = Self.now()
        let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
        if case .curlProxy(let proxy) = route, takeConnectHeader(line, proxy) { return true }
        if line.hasPrefix("HTTP/") { headerLines.removeAll() }  // a new (final or interim) response
        guard line == "\r\n" || line == "\n" else {
            headerLines.append(line)
            return true
        }
        var head = responseHead()
        guard !(100..<200).contains(head.statusCode) else { return true }  // an interim response
        if request.acceptedMediaTypes != nil, !request.wantsBody(status: head.statusCode, contentType: head.value(forHeaderField: "Content-Type")) {
            bodySkipped = true
            head.bodySkipped = true
            sink?.receivedResponse(head)
            return false
        }
        // Like curl's --max-filesize: a declared length over the limit fails before any byte;
        // a 206 is judged by where its range ends, the size of the file it completes.
        if maximumSize < .max, head.statusCode == 206, let range = head.value(forHeaderField: "Content-Range").flatMap(Self.byteRange) {
            guard range.last < maximumSize else {
                exceededLimit = true
                return false
            }
            rangeStart = range.first  // below maximumSize: the subtractions below cannot overflow
        }
        if maximumSize < .max, (200..<300).contains(head.statusCode), method != "HEAD",
           let length = head.value(forHeaderField: "Content-Length").flatMap(Int.init), length > maximumSize - rangeStart {
            exceededLimit = true
            return false
        }
        // A collected body of a declared length starts in one buffer of that size (up to 8 MiB;
        // beyond, it grows as bytes arrive), not one grown by doubling from nothing: a declared
        // length is the server's word, so it reserves no more than a few megabytes unsent.
        if sink == nil, (200..<300).contains(head.statusCode), method != "HEAD",
           let length = head.value(forHeaderField: "Content-Length").flatMap(Int.init), length > 0, length <= maximumSize {
            body.reserveCapacity(min(length, Self.largestReservation))
        }
        if route.libcurlSpeaksOriginTLS, request.url.scheme?.lowercased() == "https", head.bodyEndsAtConnectionClose(method: method),
           let ssl = rf_curl_tls_internals(easy) {
            originCloseNotify = CloseNotifyFlag.attached(to: OpaquePointer(ssl))
        }
        sink?.receivedResponse(head)
        return true
    }

    private var method: String { request.method.uppercased() }

    /// First and last byte of a Content-Range `bytes FIRST-LAST/LENGTH` (RFC 9110 §14.4); nil
    /// for the unsatisfied form or anything malformed.
    static func byteRange(_ text: String) -> (first: Int, last: Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes "), let slash = trimmed.firstIndex(of: "/") else { return nil }
        let bounds = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 6)..<slash].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0].trimmingCharacters(in: .whitespaces)),
              let last = Int(bounds[1].trimmingCharacters(in: .whitespaces)), first >= 0, first <= last else { return nil }
        return (first, last)
    }

    /// The most a declared Content-Length reserves before its bytes arrive.
    static let largestReservation = 8 << 20

    /// The response as its header block describes it (before the body).
    private func responseHead() -> HTTPResponse {
        let parts = headerLines.first?.split(separator: " ", maxSplits: 2) ?? []
        let version = parts.first.map { $0.hasPrefix("HTTP/2") ? "HTTP/2" : String($0) } ?? "HTTP/1.1"
        let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        return HTTPResponse(statusCode: status, httpVersion: version, headerFields: Self.parseHeaderFields(headerLines),
                            url: request.url, relayHops: route.hopNames)
    }

    /// Called on the curl thread when libcurl wants a socket: one the tunnel opener knows, so the
    /// connection it makes to the session's listener is joined to a relay chain for this target.
    fileprivate func openTunnelSocket() -> curl_socket_t {
        guard case .relayed(let relayed) = route else { return rf_curl_socket_bad() }
        guard let (fd, status) = relayed.opener.prepareSocket(hops: relayed.hops, target: relayed.target) else { return rf_curl_socket_bad() }
        tunnelStatus = status
        return fd
    }

    /// The outcome once libcurl reports the transfer done with `code`.
    func result(_ code: CURLcode) -> Result<(Data, HTTPResponse), FetchError> {
        if case .curlProxy(let proxy) = route {
            var connects = 0
            _ = rf_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
            proxy.opener.countProxyConnections(connects)
        }
        let (failure, end) = tunnelStatus?.snapshot ?? (nil, nil)
        if let failure { return .failure(FetchError(relay: failure)) }
        if exceededLimit {
            let budget = request.byteBudget.flatMap { $0.isExhausted ? $0.limit : nil }
            return .failure(FetchError(.responseTooLarge(limit: budget ?? maximumSize)))
        }
        guard code == CURLE_OK || bodySkipped else {
            // On a connection libcurl reused (or multiplexed), the tunnel is the one to this
            // target that ended while this transfer ran.
            var end = end
            if end == nil, case .relayed(let relayed) = route {
                end = relayed.opener.tunnelEnded(to: relayed.target, since: started)?.snapshot.end
            }
            return .failure(failureError(code, tunnelEnd: end))
        }
        var status = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var response = HTTPResponse(statusCode: status,
                                    httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? "HTTP/2" : "HTTP/1.1",
                                    headerFields: Self.parseHeaderFields(headerLines),
                                    url: request.url, relayHops: route.hopNames)
        if !bodySkipped, case .relayClosed(let hop, originStreamCut: true) = end, response.bodyEndsAtConnectionClose(method: request.method) {
            return .failure(truncatedBody(through: hop))
        }
        if !bodySkipped, let flag = originCloseNotify, !flag.received {
            guard case .curlProxy(let proxy) = route else { return .failure(truncatedBody(through: nil)) }
            return .failure(truncatedBody(through: proxy.hop))
        }
        response.timings = timings()
        response.relayHopTimings = tunnelStatus?.hopTimings ?? proxyHopReports.map(RelayHopTiming.init)
        response.bodySkipped = bodySkipped
        return .success((body, response))
    }

    /// A body that ended with the connection, but without the origin's close_notify: told as the
    /// last hop's when it came through relays (`hop`), else as the origin's.
    private func truncatedBody(through hop: HopDescription?) -> FetchError {
        let truncated = "(no close_notify); the body of \(received) bytes is truncated"
        guard let hop else {
            return FetchError(.transfer("the TLS stream from \(request.url.host ?? ""):\(request.url.portOrDefault) was cut \(truncated)"))
        }
        return FetchError(relay: RelayError(hop: hop, cause: .tunnelEndedEarly("the origin's TLS stream was cut \(truncated)")))
    }

    /// libcurl's failure, told in terms of who failed: the idle or total time limit, the origin,
    /// or the relay hop that ended the tunnel under it.
    private func failureError(_ code: CURLcode, tunnelEnd: TunnelEnd?) -> FetchError {
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let origin = "\(request.url.host ?? ""):\(request.url.portOrDefault)"
        if let why = request.bodyStream?.failure { return FetchError(.transfer(why)) }
        if idleTimedOut {
            return FetchError(.idleTimeout(seconds: idleTimeout, peer: origin, route: route.hopNames, stalled: nil))
        }
        if case .curlProxy(let proxy) = route, let error = proxyFailure(code, text: text, proxy) { return error }
        if code == CURLE_OPERATION_TIMEDOUT { return FetchError(.timedOut(maximumTime)) }
        if code == CURLE_OUT_OF_MEMORY {
            // libcurl 7.88 refuses a header block over 100 KiB with this code and no message.
            return FetchError(.transfer("the response headers from \(origin) are too large (libcurl accepts at most 100 KiB)"))
        }
        switch tunnelEnd {
        case .relayClosed(let hop, _):
            return FetchError(relay: RelayError(hop: hop, cause: .tunnelEndedEarly(text)))
        case .failed(let error):
            return FetchError(relay: error)
        case .clientClosed, nil:
            return FetchError(.transfer(text))
        }
    }

    /// Called by libcurl about once a second and on every chunk; false stops the transfer.
    fileprivate func checkIdle() -> Bool {
        // A reader that is behind (or a pipe the body comes from) holds the transfer: silence is not the sender's.
        if pausedForReader || waitsForRequestBody {
            lastActivity = Self.now()
            return true
        }
        // Until the request is on its way, the connect timeout is the one that applies.
        if !requestSent {
            var sent: curl_off_t = 0
            _ = rf_curl_easy_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &sent)
            lastActivity = Self.now()
            requestSent = sent > 0
            return true
        }
        if Self.now() - lastActivity > idleTimeout {
            idleTimedOut = true
            return false
        }
        return true
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// libcurl's cumulative phase times turned into HAR's per-phase durations.
    private func timings() -> HTTPTimings {
        func seconds(_ info: CURLINFO) -> Double {
            var value: curl_off_t = 0
            _ = rf_curl_easy_getinfo_off(easy, info, &value)
            return Double(value) / 1_000_000
        }
        let dns = seconds(CURLINFO_NAMELOOKUP_TIME_T), connect = seconds(CURLINFO_CONNECT_TIME_T)
        let tls = seconds(CURLINFO_APPCONNECT_TIME_T), sent = seconds(CURLINFO_PRETRANSFER_TIME_T)
        let firstByte = seconds(CURLINFO_STARTTRANSFER_TIME_T), total = seconds(CURLINFO_TOTAL_TIME_T)
        var timings = HTTPTimings()
        timings.dns = dns > 0 ? dns : -1
        timings.connect = connect > dns ? connect - dns : -1
        timings.ssl = tls > connect ? tls - connect : -1
        timings.send = max(0, sent - max(tls, connect, dns))
        timings.wait = max(0, firstByte - sent)
        timings.receive = max(0, total - firstByte)
        timings.total = total
        return timings
    }

    /// "HTTP/2 200", "HTTP/1.1 204 No Content"...
    private static func isSuccessStatusLine(_ line: String?) -> Bool {
        guard let line else { return false }
        let parts = line.split(separator: " ")
        return parts.count >= 2 && parts[1].hasPrefix("2")
    }

    /// "Name: value" lines after the status line, names and values trimmed of spaces, tabs and
    /// line ends. Works on the UTF-8 bytes: Foundation's trimming costs several times more, for
    /// every field of every response.
    static func parseHeaderFields(_ lines: [String]) -> [(name: String, value: String)] {
        lines.dropFirst().compactMap { line in
            let bytes = line.utf8
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = trimmed(bytes[..<colon])
            return name.isEmpty ? nil : (String(decoding: name, as: UTF8.self), String(decoding: trimmed(bytes[bytes.index(after: colon)...]), as: UTF8.self))
        }
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var slice = bytes
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }
}

// libcurl's C callbacks; each receives the transfer as an unretained pointer (the engine owns it).
private func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.appendBody(data, size * count)
}

private func curlWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().appendHeader(data, size * count) ? size * count : 0
}

private func curlProgress(_ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t,
                          _ uploadTotal: curl_off_t, _ uploaded: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().checkIdle() ? 0 : 1
}

private func curlOpenTunnelSocket(_ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let context else { return rf_curl_socket_bad() }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openTunnelSocket()
}

extension HTTPResponse {
    /// True for an HTTP/1.x response whose body has neither a length nor chunked framing, so
    /// only the end of the connection ends it (RFC 9112 §6.3).
    func bodyEndsAtConnectionClose(method: String) -> Bool {
        guard httpVersion.hasPrefix("HTTP/1"), method.uppercased() != "HEAD",
              !(100..<200).contains(statusCode), statusCode != 204, statusCode != 304 else { return false }
        if value(forHeaderField: "Content-Length") != nil { return false }
        if let coding = value(forHeaderField: "Transfer-Encoding"), coding.lowercased().contains("chunked") { return false }
        return true
    }
}
