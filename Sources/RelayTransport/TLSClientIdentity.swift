/// A TLS client certificate (DER) and its private key (DER, PKCS#8 or traditional) presented to a
/// relay (`ProxyConfiguration.TLSOptions.clientIdentity`), held in memory only. Public because
/// RelayFetch re-exports it: callers and the transport share this one type.
public struct TLSClientIdentity: Sendable, Hashable {
    public var certificateDER: [UInt8]
    public var privateKeyDER: [UInt8]

    public init(certificateDER: [UInt8], privateKeyDER: [UInt8]) {
        self.certificateDER = certificateDER
        self.privateKeyDER = privateKeyDER
    }
}
