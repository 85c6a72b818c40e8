import HTTPCore
import Foundation
import RelayTransport
internal import CCurl

/// A route of exactly one relay spoken to with HTTP/1.1 CONNECT (an https:// relay whose
/// protocol is h1, or an http:// relay), which libcurl reaches as its own proxy: it dials the
/// relay, does the relay's TLS as the hop's trust policy says, sends the CONNECT with the hop's
/// header fields only, and runs the origin's TLS and HTTP inside, with no local bridge between.
/// libcurl never goes direct with a proxy set, and tunnels http:// origins too (never the
/// absolute form), so the origin's name travels in the CONNECT only.
struct CurlProxyRoute: CurlRoute {
    let relay: RelayEndpoint
    let target: TunnelTarget
    /// The session's opener: it counts the connections to the relay and tells `-v` of tunnels.
    let opener: TunnelOpener

    /// nil unless `hops` is one hop that the chain builder would reach with HTTP/1.1 CONNECT,
    /// with fixed header fields and no challenges to answer: a hop's token from an identity
    /// provider, or a Privacy Pass token, is fetched on a 407 and retried by the chain builder,
    /// which libcurl's own proxy code cannot do.
    init?(hops: [RelayEndpoint], target: TunnelTarget, opener: TunnelOpener) {
        // A hop's IdP token, or a session that answers 407 challenges, needs our own CONNECT
        // (libcurl's would just fail on the 407).
        guard hops.count == 1, let relay = hops.first, relay.tokenSource == nil, RelayChainBuilder.speaksHTTP1Connect(relay),
              !opener.answersProxyChallenges else { return nil }
        self.relay = relay
        self.target = target
        self.opener = opener
    }

    /// The hop as errors and `-v` name it: as its connector in the chain builder does.
    var hop: HopDescription { RelayChainBuilder.description(ofHop: relay, index: 1) }

    /// The relay as libcurl's proxy URL.
    var proxyURL: String { (relay.usesTLS ? "https://" : "http://") + relay.authority }

    var hopNames: [String] { [relay.authority] }
    var libcurlSpeaksOriginTLS: Bool { true }
    var lastHop: HopDescription? { hop }

    /// The relay's addresses, for libcurl to dial without a lookup of its own; [] (libcurl asks
    /// the system) for an IP literal, or with no resolver, as the chain builder does.
    func pinnedAddresses(for url: URL, in session: Session) async throws(FetchError) -> [String] {
        guard let nameResolver = session.nameResolver, SocketAddress.literal(relay.host, port: 0) == nil else { return [] }
        do {
            return try await nameResolver.pinnedAddresses(for: relay.host) ?? []
        } catch {
            throw FetchError(relay: RelayError(hop: hop, cause: .resolveFailed(error.description)))
        }
    }

    /// Counts the connections libcurl opened to the relay (for `relayConnectionsOpened`).
    func transferEnded(_ transfer: CurlTransfer) {
        opener.ledger.countProxyConnections(transfer.connectionsOpened)
    }

    /// An HTTP/1.1 hop cannot be probed.
    func probeHops(in session: Session, timeout: Double) async -> [Bool?]? { [nil] }

    /// Points libcurl at the relay. `pinnedAddresses`: where the relay is, when the session
    /// resolved its name (libcurl's cache takes them, so it looks nothing up itself).
    func configure(_ transfer: CurlTransfer, configuration: Session.Configuration, pinnedAddresses: [String]) {
        let connectTimeout = configuration.connectTimeout
        let easy = transfer.easy
        transfer.setString(CURLOPT_PROXY, proxyURL)
        transfer.setLong(CURLOPT_PROXYTYPE, Int((relay.usesTLS ? CURLPROXY_HTTPS : CURLPROXY_HTTP).rawValue))
        transfer.setLong(CURLOPT_HTTPPROXYTUNNEL, 1)   // http:// origins are tunnelled too, never sent to the relay in the clear
        transfer.setString(CURLOPT_NOPROXY, "")        // nothing is exempt (the environment's no_proxy neither)
        transfer.setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 0)  // the relay's answer comes to `takeHeaderLine`
        transfer.setLong(CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        // HTTP/1.1 to the origin, one exchange per tunnel: libcurl 7.88 multiplexing HTTP/2
        // streams inside its proxy tunnel leaves responses it has read into its TLS buffers
        // unread until the idle timeout (30 s, resources failed: HTTP1RelayPageLoadTests).
        transfer.setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        transfer.pin(relay.host, port: Int(relay.port), to: pinnedAddresses)

        // The hop's fields on the CONNECT only; the request's own fields (and User-Agent) never.
        transfer.setLong(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE))
        var connectHeaders: UnsafeMutablePointer<curl_slist>?
        for field in relay.headerFields { connectHeaders = curl_slist_append(connectHeaders, "\(field.name): \(field.value)") }
        // "Name:" with no value stops libcurl adding its own field of that name.
        for name in ["User-Agent", "Proxy-Connection"] where !relay.headerFields.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            connectHeaders = curl_slist_append(connectHeaders, "\(name):")
        }
        transfer.lists.append(connectHeaders)
        _ = rf_curl_easy_setopt_slist(easy, CURLOPT_PROXYHEADER, connectHeaders)

        if relay.usesTLS { configureRelayTrust(TLSTrustPolicy(relay.trust), of: transfer) }
    }

    /// The relay's TLS as the transport's policy says: the chain and name against the anchors,
    /// or, with pins, the key alone (the chain not consulted); the client identity when set.
    private func configureRelayTrust(_ policy: TLSTrustPolicy, of transfer: CurlTransfer) {
        let easy = transfer.easy
        transfer.setLong(CURLOPT_PROXY_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        transfer.setLong(CURLOPT_PROXY_SSL_VERIFYPEER, policy.verifiesChain ? 1 : 0)
        transfer.setLong(CURLOPT_PROXY_SSL_VERIFYHOST, policy.verifiesChain ? 2 : 0)
        switch policy.anchors {
        case .file(let path)?:
            transfer.setString(CURLOPT_PROXY_CAINFO, path)
            _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_PROXY_CAPATH, nil)  // that file only, not the system folder too
        case .systemStore?, nil:
            break
        }
        if !policy.pins.isEmpty {
            transfer.setString(CURLOPT_PROXY_PINNEDPUBLICKEY, policy.pins.map { "sha256//" + Data($0).base64EncodedString() }.joined(separator: ";"))
        }
        if let identity = policy.clientIdentity {
            transfer.setString(CURLOPT_PROXY_SSLCERTTYPE, "DER")
            transfer.setString(CURLOPT_PROXY_SSLKEYTYPE, "DER")
            _ = identity.certificateDER.withUnsafeBytes { rf_curl_easy_setopt_blob(easy, CURLOPT_PROXY_SSLCERT_BLOB, $0.baseAddress, $0.count) }
            _ = identity.privateKeyDER.withUnsafeBytes { rf_curl_easy_setopt_blob(easy, CURLOPT_PROXY_SSLKEY_BLOB, $0.baseAddress, $0.count) }
        }
    }

    /// Takes a header line of the relay's answer to the CONNECT (libcurl passes it on before any
    /// request was sent); false for the origin's lines. A 2xx answer opens the tunnel.
    func takeHeaderLine(_ line: String, of transfer: CurlTransfer) -> Bool {
        guard !transfer.requestStarted else { return false }
        if line.hasPrefix("HTTP/") {
            // A status line libcurl accepted but ours does not read (a code past 599): status 0, a refusal.
            let answer = StatusLine(line)
            transfer.connectAnswer = (answer?.status ?? 0, answer?.reason ?? "")
        } else if line == "\r\n" || line == "\n", let answer = transfer.connectAnswer, (200..<300).contains(answer.status) {
            let report = HopReport(hop: hop, connectedAfter: IdleClock.now() - transfer.started, reusedConnection: false)
            transfer.proxyHopReports = [report]
            opener.reportTunnelOpen([report])
        }
        return true
    }

    /// libcurl's failure `code` on a `CurlProxyRoute`: the hop's when the tunnel never came up
    /// or was cut under the exchange, the origin's (nil: as on any route) otherwise.
    func failure(_ code: CURLcode, text: String, of transfer: CurlTransfer) -> FetchError? {
        // The whole request's time limit, not the hop's connect timeout.
        if code == CURLE_OPERATION_TIMEDOUT, transfer.maximumTime > 0, IdleClock.now() - transfer.started >= transfer.maximumTime { return nil }
        if let answer = transfer.connectAnswer, !(200..<300).contains(answer.status) {
            return FetchError(relay: RelayError(hop: hop, cause: .tunnelRefused(status: answer.status, reason: answer.reason)))
        }
        let tunnelUp = transfer.connectAnswer != nil || transfer.requestStarted  // answered 2xx now, or a reused connection
        guard tunnelUp else { return FetchError(relay: RelayError(hop: hop, cause: Self.setupCause(code, text: text, errno: transfer.osErrno))) }
        switch code {
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return FetchError(relay: RelayError(hop: hop, cause: .tunnelEndedEarly(text)))
        default:
            return nil
        }
    }

    /// Why the tunnel could not be set up, by libcurl's code for the step that failed.
    private static func setupCause(_ code: CURLcode, text: String, errno: Int) -> RelayError.Cause {
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY: return .resolveFailed(text)
        case CURLE_COULDNT_CONNECT: return errno == Int(ECONNREFUSED) ? .connectionRefused : .connectFailed(text)
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: return .publicKeyPinMismatch
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CLIENTCERT, CURLE_SSL_ENGINE_INITFAILED:
            return .tls(text)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR: return .closedDuringSetup
        case CURLE_WEIRD_SERVER_REPLY: return .protocolError(text)
        default: return .connectFailed(text)
        }
    }
}

