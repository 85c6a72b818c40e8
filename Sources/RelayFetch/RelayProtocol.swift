import RelayTransport

/// The HTTP version spoken to one relay (`ProxyConfiguration.RelayHop.relayProtocol`).
public enum RelayProtocol: String, Sendable, Hashable, CaseIterable {
    /// HTTP/3 first where QUIC can reach the relay, else h2 or http/1.1 by ALPN, as the relay picks.
    case automatic = "auto"
    /// HTTP/1.1 CONNECT only.
    case http1 = "h1"
    /// HTTP/2 CONNECT only; fails when the relay does not offer h2.
    case http2 = "h2"
    /// HTTP/3 CONNECT over QUIC: to the first hop, or to a later hop through an HTTP/3 hop
    /// (QUIC inside CONNECT-UDP); behind an HTTP/2 or HTTP/1.1 hop it is not supported.
    case http3 = "h3"

    /// The transport's protocol for the hop.
    var hopProtocol: HopProtocol {
        switch self {
        case .automatic: return .automatic
        case .http1: return .http1
        case .http2: return .http2
        case .http3: return .http3
        }
    }
}

/// A TLS client certificate (DER) and its private key (DER, PKCS#8 or traditional) presented to a
/// relay (`ProxyConfiguration.TLSOptions.clientIdentity`), held in memory only.
public struct TLSClientIdentity: Sendable, Hashable {
    public var certificateDER: [UInt8]
    public var privateKeyDER: [UInt8]

    public init(certificateDER: [UInt8], privateKeyDER: [UInt8]) {
        self.certificateDER = certificateDER
        self.privateKeyDER = privateKeyDER
    }

    /// The transport's identity for the hop's TLS.
    var tlsIdentity: TLSIdentity { TLSIdentity(certificateDER: certificateDER, privateKeyDER: privateKeyDER) }
}
