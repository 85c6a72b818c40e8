#if canImport(Glibc)
import HTTPCore
import Glibc
#endif
import Foundation
import RelayTransport
internal import CCurl

/// One request/response exchange on one libcurl easy handle (no redirects: the session follows
/// them): the handle's options, the response head and the body, collected or streamed into a
/// sink, and the idle clock. How the exchange reaches its origin is its route's business
/// (`CurlRoute`): the route sets its own options, supplies sockets and tells failures apart.
// @unchecked: built on the caller's thread, then touched only by the curl thread (the easy
// handle, the vars, `continuation`) once `CurlEngine.perform` hands it over under the engine's lock.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let request: HTTPRequest
    let route: any CurlRoute
    /// The body's size rules: the request's `maximumBodySize`, else (for a buffered body) the
    /// session's `maximumResponseSize`; a streamed body has no limit of its own (curl thread).
    private(set) var limit: BodyLimit
    var lists: [UnsafeMutablePointer<curl_slist>?] = []
    /// libcurl's error text; allocated in `init` after the last step that can fail before every
    /// property is set (no `deinit` runs for an object left half made, so it would leak).
    let errorBuffer: UnsafeMutablePointer<CChar>

    // Written on the curl thread during the transfer.
    fileprivate(set) var body = Data()
    fileprivate(set) var headerLines: [String] = []
    /// Where the body goes when it is streamed (`Session.bytes(for:)`) instead of collected.
    let sink: BodyBuffer?
    /// True while libcurl holds the transfer paused for a reader that is behind (curl thread).
    var pausedForReader = false
    /// Set when the response's header said its body is not wanted (`acceptedMediaTypes`).
    fileprivate(set) var bodySkipped = false

    /// The status of the tunnel this transfer opened (curl thread, set by a `TunnelRoute`); nil
    /// on a reused connection or another route.
    var tunnelStatus: TunnelStatus?
    let started = IdleClock.now()
    /// On a `CurlProxyRoute` (curl thread): the relay's answer to the CONNECT, once it came,
    /// and the hop's report once the tunnel opened.
    var connectAnswer: (status: Int, reason: String)?
    var proxyHopReports: [HopReport] = []
    /// Where libcurl speaks the origin's TLS, for a body that ends with the connection: whether
    /// the origin's TLS stream ended with close_notify (set by OpenSSL's callback on the curl thread).
    private(set) var originCloseNotify: CloseNotifyFlag?

    /// The idle timeout's clock (curl thread).
    var idleClock: IdleClock
    let maximumTime: Double

    var continuation: CheckedContinuation<(Data, HTTPResponse), Error>?
    /// Receives the body of a successful (2xx) final response as it arrives, on the curl thread.
    var onBodyChunk: (@Sendable (URL, Data) -> Void)?

    /// With a `sink`, the body streams into it (and libcurl reads in large pieces); without one
    /// it is collected in `body`. `pinnedAddresses`: on a direct route, where the host is
    /// (resolved by the session's encrypted resolver), so libcurl resolves nothing itself; on a
    /// `CurlProxyRoute`, where the relay is.
    init(request: HTTPRequest, route: any CurlRoute, configuration: Session.Configuration, pinnedAddresses: [String] = [],
         sink: BodyBuffer? = nil) throws(FetchError) {
        guard let easy = curl_easy_init() else { throw FetchError(.transfer("libcurl could not create a handle")) }
        self.easy = easy
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        self.request = request
        self.route = route
        self.sink = sink
        self.limit = BodyLimit(maximum: request.maximumBodySize ?? (sink == nil ? configuration.maximumResponseSize : .max))
        self.idleClock = IdleClock(timeout: configuration.idleTimeout)
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

    /// This transfer for libcurl's callbacks, unretained: the engine holds it while curl runs it.
    var unretainedPointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func configure(_ configuration: Session.Configuration, pinnedAddresses: [String]) {
        let me = unretainedPointer
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

        configureRequest()
        if request.originRace != nil { claimBeforeSending() }
        if route.libcurlSpeaksOriginTLS {
            // libcurl's TLS takes a cut stream for the end of a body that ends with the connection:
            // each TLS connection is watched for the origin's close_notify instead.
            _ = rf_curl_easy_setopt_sslctx(easy, curlWatchTLSContext)
        }
        route.configure(self, configuration: configuration, pinnedAddresses: pinnedAddresses)
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
        idleClock.touch()
        guard limit.fits(count) else { return 0 }
        if let sink {
            switch sink.offer(pointer, count: count) {
            case .pause:
                pausedForReader = true
                return rf_curl_writefunc_pause()
            case .failed:
                return 0  // the file the body went into refused it (the buffer keeps the error)
            case .taken:
                idleClock.touch()  // a write into a file may have taken a while
            }
            // Taken once the reader accepted the piece (a paused one comes again): a streamed body
            // draws on a shared budget too, and stops at the piece that overdraws it.
            return limit.take(count, from: request.byteBudget) ? count : 0
        }
        guard limit.take(count, from: request.byteBudget) else { return 0 }
        pointer.withMemoryRebound(to: UInt8.self, capacity: count) { body.append($0, count: count) }
        if let onBodyChunk, ResponseHead.isSuccess(headerLines.first) {
            onBodyChunk(request.url, Data(bytes: pointer, count: count))
        }
        return count
    }

    /// Takes one header line; false stops the transfer: at the end of a header whose body the
    /// request does not want, or that declares a length over the limit.
    fileprivate func appendHeader(_ pointer: UnsafePointer<CChar>, _ count: Int) -> Bool {
        idleClock.touch()
        let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
        if route.takeHeaderLine(line, of: self) { return true }
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
        guard limit.admits(head, method: method) else { return false }
        // A collected body of a declared length starts in one buffer of that size (up to 8 MiB;
        // beyond, it grows as bytes arrive), not one grown by doubling from nothing: a declared
        // length is the server's word, so it reserves no more than a few megabytes unsent.
        if sink == nil, (200..<300).contains(head.statusCode), method != "HEAD",
           let length = head.value(forHeaderField: "Content-Length").flatMap(Int.init), length > 0, length <= limit.maximum {
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

    /// The most a declared Content-Length reserves before its bytes arrive.
    static let largestReservation = 8 << 20

    /// The response as its header block describes it (before the body).
    private func responseHead() -> HTTPResponse {
        let (version, status) = ResponseHead.statusLine(headerLines.first)
        return HTTPResponse(statusCode: status, httpVersion: version, headerFields: ResponseHead.fields(headerLines),
                            url: request.url, relayHops: route.hopNames)
    }

    /// Called by libcurl about once a second and on every chunk; false stops the transfer.
    fileprivate func checkIdle() -> Bool {
        // A reader that is behind (or a pipe the body comes from) holds the transfer.
        idleClock.check(readerBehind: pausedForReader || waitsForRequestBody) { requestStarted }
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
