import RelayTransport
// How one relay is spoken to (`ProxyConfiguration.RelayHop.relayProtocol`): the transport's own
// enum, re-exported so that `import RelayFetch` gives it, and the chain builder's registry is
// keyed by what callers set; no twin to map by hand.
@_exported import enum RelayTransport.RelayProtocol

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
