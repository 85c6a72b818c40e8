import Foundation
import RelayFetch

/// A configuration profile (`.mobileconfig`) read for its `com.apple.relay.managed` payloads.
public struct ManagedRelayProfile: Sendable {
    /// The profile's own identifier and name, when given.
    public let identifier: String?
    public let displayName: String?
    /// The CMS signature, if the profile was signed.
    public let signature: ProfileSignature?
    /// One entry per relay payload, in file order.
    public let relayPayloads: [ManagedRelayPayload]
    public let warnings: [ProfileWarning]

    /// The relay configurations, ready for a `Session`.
    public var proxyConfigurations: [ProxyConfiguration] { relayPayloads.map(\.proxyConfiguration) }
}

/// Who signed a profile and whether the chain leads to a trusted root.
public struct ProfileSignature: Sendable {
    /// The signer certificate's subject, e.g. "CN=Example Corp Profile Signing".
    public let signerSubject: String
    /// True when the signer's certificate chains to the trust store used.
    public let signerTrusted: Bool
}

/// One `com.apple.relay.managed` payload: a relay chain and the hosts it covers.
public struct ManagedRelayPayload: Sendable {
    public let payloadIdentifier: String?
    public let payloadUUID: String?
    public let relayUUID: String?
    /// The chain, nearest the client first.
    public let relays: [ManagedRelay]
    public let matchDomains: [String]
    public let excludedDomains: [String]
    public let matchFQDNs: [String]
    public let excludedFQDNs: [String]

    public var proxyConfiguration: ProxyConfiguration {
        var proxy = ProxyConfiguration(relayHops: relays.map(\.relayHop))
        proxy.matchDomains = matchDomains
        proxy.excludedDomains = excludedDomains
        proxy.matchFQDNs = matchFQDNs
        proxy.excludedFQDNs = excludedFQDNs
        return proxy
    }
}

/// One relay of a managed payload.
public struct ManagedRelay: Sendable {
    public let http3RelayURL: URL?
    /// A URL, or an RFC 9298 URI template (kept as written; its scheme, host and port are used).
    public let http2RelayURL: URL?
    public let http2RelayTemplate: String?
    public let additionalHTTPHeaderFields: [String: String]
    /// SHA-256 of each `RawPublicKeys` entry (DER SubjectPublicKeyInfo).
    public let pinnedPublicKeySHA256: [Data]
    /// The identity from the PKCS#12 payload named by `PayloadCertificateUUID`.
    public let identity: ClientIdentity?
    /// `DNSOverHTTPSURL`: a DoH resolver reached through this relay.
    public let dnsOverHTTPSURL: URL?
    /// `RelayTokenOAuthScenario` (relayfetch's own key): the path of the OAuth scenario whose
    /// access token is this relay's bearer token, as `--relay-token-oauth` takes it (relative to
    /// the profile's folder). The command that loads the profile gives the hop its token source.
    public let relayTokenScenario: String?
    /// `RelayPrivacyPassIssuer` (relayfetch's own key): the issuer whose tokens answer this
    /// relay's `PrivateToken` 407, as `--relay-privacy-pass` takes it (http or https, with a host).
    public let privacyPassIssuer: URL?
    /// `RelayPrivacyPassOAuthScenario` (relayfetch's own key): the OAuth scenario whose access token
    /// attests for the client to that issuer, as `--relay-privacy-pass-oauth` takes it (relative
    /// to the profile's folder); only beside `RelayPrivacyPassIssuer`.
    public let privacyPassAttestationScenario: String?

    public var relayHop: ProxyConfiguration.RelayHop {
        var options = ProxyConfiguration.TLSOptions(pinnedPublicKeySHA256: pinnedPublicKeySHA256)
        options.clientIdentity = identity?.tlsIdentity
        var hop = ProxyConfiguration.RelayHop(http3RelayEndpoint: http3RelayURL, http2RelayEndpoint: http2RelayURL,
                                              tlsOptions: options, additionalHTTPHeaderFields: additionalHTTPHeaderFields)
        hop.dnsOverHTTPSURL = dnsOverHTTPSURL
        return hop
    }
}

/// A client certificate and key from a `com.apple.security.pkcs12` payload, in memory only.
public struct ClientIdentity: Sendable {
    public let payloadUUID: String
    /// The certificate's subject, e.g. "CN=relay client".
    public let subject: String
    public let tlsIdentity: TLSClientIdentity
}
