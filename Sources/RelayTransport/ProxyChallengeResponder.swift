/// A relay's 407 on a CONNECT (HTTP/1.1, HTTP/2 or HTTP/3), as a responder sees it: which hop,
/// and the challenges (`Proxy-Authenticate` values) it sent.
package struct ProxyChallenge: Sendable, Hashable {
    /// The hop's index in the chain (1 is the first relay).
    package let hop: Int
    /// The relay's host:port.
    package let relay: String
    package let proxyAuthenticate: [String]

    package init(hop: Int, relay: String, proxyAuthenticate: [String]) {
        self.hop = hop
        self.relay = relay
        self.proxyAuthenticate = proxyAuthenticate
    }
}

/// Answers a relay's 407 with a credential for one retry of that tunnel (a Privacy Pass token as
/// `PrivateToken token=...`): `.success(nil)` lets the 407 fail the tunnel as it is, a failure
/// fails it with `RelayError.Cause.tokenIssuanceFailed` naming the issuer. Called on the
/// session's loop; it must not block it (issuance is a network round trip), and may call back
/// from any thread. Each call is for one new tunnel: a credential is used once, never stored here.
package typealias ProxyChallengeResponder = @Sendable (ProxyChallenge, @escaping @Sendable (Result<String?, TokenIssuanceFailure>) -> Void) -> Void
