/// A relay's 407 on an HTTP/1.1 CONNECT, as a responder sees it: which hop, and the challenges
/// (`Proxy-Authenticate` values) it sent.
package struct ProxyChallenge: Sendable, Hashable {
    /// The hop's index in the chain (1 is the first relay).
    package let hop: Int
    /// The relay's host:port.
    package let relay: String
    package let proxyAuthenticate: [String]
}

/// Answers a relay's 407 with a credential for one retry of that tunnel (a Privacy Pass token as
/// `PrivateToken token=...`), or nil to let the 407 fail the tunnel. Called on the session's loop;
/// it must not block it (issuance is a network round trip), and may call back from any thread.
/// Each call is for one new tunnel: a credential is used once and never stored here.
package typealias ProxyChallengeResponder = @Sendable (ProxyChallenge, @escaping @Sendable (String?) -> Void) -> Void
