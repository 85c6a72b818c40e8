import Foundation
import RelayTransport
internal import CCurl

/// Through relay tunnels this session builds (any chain: HTTP/1.1, HTTP/2 and HTTP/3 hops, two
/// or more): libcurl connects to the session's loopback listener under a name of this route's
/// own, never to the origin, so it never resolves the origin's name; the opener joins each such
/// connection to a chain it builds for `target`. TLS and Host still use the URL's host name.
struct TunnelRoute: CurlRoute {
    let hops: [RelayEndpoint]
    let target: TunnelTarget
    let opener: TunnelOpener

    var hopNames: [String] { hops.map(\.authority) }
    var libcurlSpeaksOriginTLS: Bool { false }

    /// None: libcurl dials the listener, pinned below.
    func pinnedAddresses(for url: URL, in session: Session) async throws(FetchError) -> [String] { [] }

    func configure(_ transfer: CurlTransfer, configuration: Session.Configuration, pinnedAddresses: [String]) {
        // The name is the route's (pinned to 127.0.0.1: no lookup), so that libcurl's per-host
        // connection limit counts each origin apart.
        let alias = opener.ledger.connectAlias(hops: hops, target: target)
        let port = Int(opener.listenerPort)
        transfer.pin(alias, port: port, to: ["127.0.0.1"])
        let connectTo = curl_slist_append(nil, "::\(alias):\(port)")
        transfer.lists.append(connectTo)
        _ = rf_curl_easy_setopt_slist(transfer.easy, CURLOPT_CONNECT_TO, connectTo)
        // Loopback TCP with Nagle on holds a request's second write (a POST body after its
        // headers) until the first is acknowledged, up to a delayed-ACK timeout (40 ms).
        transfer.setLong(CURLOPT_TCP_NODELAY, 1)
        _ = rf_curl_easy_setopt_opensocket(transfer.easy, curlOpenTunnelSocket)
        _ = rf_curl_easy_setopt_ptr(transfer.easy, CURLOPT_OPENSOCKETDATA, transfer.unretainedPointer)
    }

    /// A socket the opener knows, so the connection libcurl makes to the listener with it is
    /// joined to a chain for this target. Called on the curl thread.
    func openSocket(for transfer: CurlTransfer) -> curl_socket_t {
        guard let (fd, status) = opener.prepareSocket(hops: hops, target: target) else { return rf_curl_socket_bad() }
        transfer.tunnelStatus = status
        return fd
    }

    /// On a connection libcurl reused (or multiplexed), the tunnel is the one to this target
    /// that ended while the transfer ran.
    func tunnelEnd(under transfer: CurlTransfer) -> TunnelEnd? {
        opener.ledger.tunnelEnded(to: target, since: transfer.started)?.snapshot.end
    }

    func probeHops(in session: Session, timeout: Double) async -> [Bool?]? {
        await opener.probe(hops: hops, timeout: timeout)
    }
}

/// libcurl's open-socket callback: the transfer (unretained; the engine holds it) asks its route.
private func curlOpenTunnelSocket(_ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let context else { return rf_curl_socket_bad() }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.route.openSocket(for: transfer)
}
