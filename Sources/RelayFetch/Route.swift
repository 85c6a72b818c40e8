import Foundation
import RelayTransport

/// How one exchange reaches its origin. One type per way, each alone in knowing how:
/// `DirectRoute`, `TunnelRoute` (tunnels this session builds, which libcurl reaches through the
/// session's loopback listener), `CurlProxyRoute` (libcurl's own HTTP/1.1 proxy),
/// `ObliviousRoute` (encapsulated, then POSTed over another route) and `HTTP3OriginRoute`
/// (HTTP/3 over our own QUIC, direct or inside CONNECT-UDP). The session picks one for
/// each request (`Session.route(for:)`) and asks it to carry the exchange; nothing else asks
/// which kind a route is.
protocol Route: Sendable {
    /// The relay hops as responses, errors and `-v` name them (none for a direct route).
    var hopNames: [String] { get }

    /// Carries one exchange of `session` (no redirects: the session follows them) with its
    /// body collected; `onBodyChunk` sees the body of a successful response as it arrives.
    /// `request` already carries its cookies, Referer and revalidation conditions.
    func exchange(_ request: HTTPRequest, in session: Session, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse)

    /// Carries one exchange of `session` whose body streams to the reader, returning at the
    /// response's head. `original` is the request as the session took it (cookies and Referer
    /// still to add); the time limit left to the request is `timeLimit`.
    func streamingExchange(_ original: HTTPRequest, in session: Session, timeLimit: Double) async throws -> (ResponseBody, HTTPResponse)
}

enum Routes {
    /// The route through `hops` to `target`: libcurl's own proxy support when it can carry the
    /// hops, else tunnels that `opener` builds. The one place this is decided.
    static func through(_ hops: [RelayEndpoint], to target: TunnelTarget, opener: TunnelOpener) -> any CurlRoute {
        CurlProxyRoute(hops: hops, target: target, opener: opener) ?? TunnelRoute(hops: hops, target: target, opener: opener)
    }
}
