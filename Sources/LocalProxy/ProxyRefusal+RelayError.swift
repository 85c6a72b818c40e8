import RelayTransport

extension ProxyRefusal {
    /// What a failed chain of `chainLength` hops tells the client: a last relay that could not
    /// reach the target (500, 502 or 503 to its CONNECT, or a SOCKS5 hop's reply) is the
    /// target's fault; a hop that cannot be reached, or whose relay cannot reach the next, is the
    /// chain's. An HTTP relay says "refused" only in its reason phrase, if at all (squid answers
    /// 503 for a refused port and 500 for an unknown name), so most refusals read as unreachable.
    package init(_ error: RelayError, chainLength: Int) {
        let atLastHop = error.hop.index == chainLength
        switch error.cause {
        case .timeout:
            self = .timedOut
        case .tunnelRefused(let status, let reason) where atLastHop:
            switch status {
            case 403, 407: self = .notAllowed
            case 504: self = .timedOut
            case 500, 502, 503, 404: self = reason.lowercased().contains("refused") ? .connectionRefused : .hostUnreachable
            default: self = .generalFailure
            }
        case .socksRefused(let reply) where atLastHop:
            switch reply {
            case .notAllowedByRuleset: self = .notAllowed
            case .hostUnreachable, .networkUnreachable: self = .hostUnreachable
            case .connectionRefused: self = .connectionRefused
            case .ttlExpired: self = .timedOut
            default: self = .generalFailure
            }
        case .unreachable, .connectionRefused, .connectFailed, .resolveFailed, .tls, .publicKeyPinMismatch, .protocolNotOffered,
             .closedDuringSetup, .connectionLost:
            self = .relayUnreachable
        case .tunnelRefused(let status, _):
            self = status == 403 || status == 407 ? .notAllowed : .relayUnreachable
        default:
            self = .generalFailure
        }
    }
}
