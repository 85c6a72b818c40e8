/// A failure of the transport, naming the hop and the cause.
package struct RelayError: Error, Sendable, CustomStringConvertible {
    /// Why a hop failed.
    package enum Cause: Sendable, Hashable {
        case resolveFailed(String)
        case connectionRefused
        case connectFailed(String)
        /// An established connection to the hop broke (reset, broken pipe).
        case connectionLost(String)
        case timeout
        case tls(String)
        /// The relay answered the CONNECT with a non-2xx status.
        case tunnelRefused(status: Int, reason: String)
        case closedDuringSetup
        case protocolError(String)
        /// The previous hop could not reach this one (it answered the CONNECT with 502, 503 or 504).
        case unreachable(via: Int, status: Int, reason: String)
        /// The relay did not offer the protocol this hop insists on.
        case protocolNotOffered(wanted: String, offered: String)
        case publicKeyPinMismatch
        case unsupported(String)
        /// The tunnel ended (closed or failed at this hop) before the exchange inside it finished.
        case tunnelEndedEarly(String)
        /// The SOCKS5 server accepts none of the authentication methods offered (RFC 1928 method
        /// X'FF'): `offered` names them.
        case socksNoAcceptableMethod(offered: String)
        /// The SOCKS5 server rejected the hop's username and password (RFC 1929 `status`).
        case socksAuthenticationFailed(status: Int)
        /// The SOCKS5 server answered the CONNECT with a failure reply (RFC 1928 §6).
        case socksRefused(SOCKS5Reply)
        /// The hop's token source (its identity provider) gave no token: why, without secrets.
        case tokenUnavailable(String)
        /// The relay refused the hop's token again after it was replaced by a fresh one.
        case tokenRefused(status: Int, reason: String)
        /// The hop's Privacy Pass issuer gave no token for the relay's 407 challenge.
        case tokenIssuanceFailed(TokenIssuanceFailure)
    }

    package let hop: HopDescription
    package let cause: Cause
    /// A 407's `Proxy-Authenticate` values (the challenges a `ProxyChallengeResponder` may
    /// answer); empty for any other failure.
    package var proxyAuthenticate: [String] = []

    package init(hop: HopDescription, cause: Cause) {
        self.hop = hop
        self.cause = cause
    }

    package var description: String { "\(hop): \(cause)" }
}

extension RelayError.Cause: CustomStringConvertible {
    /// The cause in words, without the hop.
    package var description: String {
        switch self {
        case .resolveFailed(let why): return "cannot resolve relay host: \(why)"
        case .connectionRefused: return "connection refused"
        case .connectFailed(let why): return "cannot connect: \(why)"
        case .connectionLost(let why): return "connection lost: \(why)"
        case .timeout: return "timed out"
        case .tls(let why): return "TLS handshake failed: \(why)"
        case .tunnelRefused(let status, let reason):
            let hint = status == 407 ? " (proxy authentication required: the hop's header fields carry no credentials it accepts)"
                : status == 403 ? " (forbidden by the relay)" : ""
            return "relay refused the tunnel: \(status) \(reason)\(hint)"
        case .closedDuringSetup: return "relay closed the connection during setup"
        case .protocolError(let why): return "protocol error: \(why)"
        case .unreachable(let via, let status, let reason):
            return "unreachable: hop \(via) answered \(status) \(reason) when connecting to it"
        case .protocolNotOffered(let wanted, let offered):
            return "relay does not offer \(wanted) (its ALPN answer: \(offered))"
        case .publicKeyPinMismatch: return "the relay's public key matches none of the pinned keys"
        case .unsupported(let what): return what
        case .tunnelEndedEarly(let why): return "the relay closed the tunnel before the response was complete: \(why)"
        case .socksNoAcceptableMethod(let offered):
            return "the SOCKS5 server accepts none of the authentication methods offered (\(offered))"
        case .socksAuthenticationFailed(let status):
            return "the SOCKS5 server rejected the username and password (RFC 1929 status \(status))"
        case .socksRefused(let reply): return "the SOCKS5 server refused the connection: \(reply)"
        case .tokenUnavailable(let why): return "no relay token from the identity provider: \(why)"
        case .tokenRefused(let status, let reason):
            return "relay refused the identity provider's token again after a fresh one was fetched: \(status) \(reason)"
        case .tokenIssuanceFailed(let failure): return failure.description
        }
    }
}
