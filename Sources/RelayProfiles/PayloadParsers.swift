import Foundation
import CryptoPrimitives

/// Parsers for the two payload kinds relayfetch understands.
enum PayloadParsers {
    static func identity(_ payload: PlistNode, warnings: inout [ProfileWarning]) throws(ProfileError) -> ClientIdentity {
        warnings += try payload.validate(PayloadSchema.pkcs12)
        guard let uuid = try payload.child("PayloadUUID")?.string() else {
            throw ProfileError(keyPath: "\(payload.path).PayloadUUID", reason: "missing")
        }
        guard let content = payload.child("PayloadContent") else {
            throw ProfileError(keyPath: "\(payload.path).PayloadContent", reason: "missing: the PKCS#12 data")
        }
        let password = try payload.child("Password")?.string() ?? ""
        let opened = try OpenSSLProfileCrypto.identity(pkcs12: try content.data(), password: password, path: content.path)
        return ClientIdentity(payloadUUID: uuid, subject: opened.subject,
                              tlsIdentity: .init(certificateDER: opened.certificate, privateKeyDER: opened.key))
    }

    static func relayPayload(_ payload: PlistNode, identities: [String: ClientIdentity],
                             warnings: inout [ProfileWarning]) throws(ProfileError) -> ManagedRelayPayload {
        warnings += try payload.validate(PayloadSchema.relayPayload)
        guard let relaysNode = payload.child("Relays") else {
            throw ProfileError(keyPath: payload.path + ".Relays", reason: "missing: a relay payload needs at least one relay")
        }
        let relayNodes = try relaysNode.array()
        guard !relayNodes.isEmpty else { throw relaysNode.fail("empty: a relay payload needs at least one relay") }
        var relays: [ManagedRelay] = []
        for node in relayNodes { relays.append(try relay(node, identities: identities, warnings: &warnings)) }
        return ManagedRelayPayload(payloadIdentifier: try payload.child("PayloadIdentifier")?.string(),
                                   payloadUUID: try payload.child("PayloadUUID")?.string(),
                                   relayUUID: try payload.child("RelayUUID")?.string(),
                                   relays: relays,
                                   matchDomains: try domains(payload.child("MatchDomains")),
                                   excludedDomains: try domains(payload.child("ExcludedDomains")),
                                   matchFQDNs: try domains(payload.child("MatchFQDNs")),
                                   excludedFQDNs: try domains(payload.child("Excluded FQDNs")))
    }

    private static func relay(_ node: PlistNode, identities: [String: ClientIdentity],
                              warnings: inout [ProfileWarning]) throws(ProfileError) -> ManagedRelay {
        warnings += try node.validate(PayloadSchema.relay)
        let http3 = try node.child("HTTP3RelayURL").map { item throws(ProfileError) in try relayURL(item).url }
        let http2 = try node.child("HTTP2RelayURL").map { item throws(ProfileError) in try relayURL(item) }
        guard http3 != nil || http2 != nil else {
            throw ProfileError(keyPath: node.path, reason: "a relay needs HTTP3RelayURL or HTTP2RelayURL")
        }
        var headers: [String: String] = [:]
        if let fields = node.child("AdditionalHTTPHeaderFields") {
            for name in try fields.dictionary().keys.sorted() {
                let value = try fields.child(name)!.string()
                guard isToken(name), !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                    throw ProfileError(keyPath: "\(fields.path).\(name)", reason: "not a valid header field")
                }
                headers[name] = value
            }
        }
        var pins: [Data] = []
        if let keys = node.child("RawPublicKeys") {
            for key in try keys.array() {
                let der = try key.data()
                guard der.count >= 32 else { throw key.fail("not a DER SubjectPublicKeyInfo") }
                pins.append(Data(Digest.of(der, .sha256)))
            }
        }
        var identity: ClientIdentity?
        if let reference = node.child("PayloadCertificateUUID") {
            let uuid = try reference.string()
            guard let found = identities[uuid] else {
                throw reference.fail("no com.apple.security.pkcs12 payload has PayloadUUID \(uuid)")
            }
            identity = found
        }
        let doh = try node.child("DNSOverHTTPSURL").map { item throws(ProfileError) in try relayURL(item).url }
        let issuer = try node.child("RelayPrivacyPassIssuer").map { item throws(ProfileError) in try issuerURL(item) }
        let attestation = node.child("RelayPrivacyPassOAuthScenario")
        if let attestation, issuer == nil { throw attestation.fail("needs RelayPrivacyPassIssuer beside it: it attests to that issuer") }
        return ManagedRelay(http3RelayURL: http3, http2RelayURL: http2?.url, http2RelayTemplate: http2?.template,
                            additionalHTTPHeaderFields: headers, pinnedPublicKeySHA256: pins, identity: identity, dnsOverHTTPSURL: doh,
                            relayTokenScenario: try node.child("RelayTokenOAuthScenario")?.string(),
                            privacyPassIssuer: issuer, privacyPassAttestationScenario: try attestation?.string())
    }

    /// A Privacy Pass issuer's URL: http or https, with a host (its path is the issuer's root).
    private static func issuerURL(_ node: PlistNode) throws(ProfileError) -> URL {
        let text = try node.string()
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme), url.host?.isEmpty == false else {
            throw node.fail("not an issuer URL such as https://issuer.example: \(text)")
        }
        return url
    }

    /// A relay URL: https, with a host; or an RFC 9298 URI template over one.
    private static func relayURL(_ node: PlistNode) throws(ProfileError) -> (url: URL, template: String?) {
        let text = try node.string()
        var concrete = text
        var template: String?
        if text.contains("{") {
            let variables = text.split(separator: "{").dropFirst().compactMap { $0.split(separator: "}").first.map(String.init) }
            let allowed: Set<String> = ["target_host", "target_port", "ip_version", "ip_proto", "target"]
            guard text.filter({ $0 == "{" }).count == text.filter({ $0 == "}" }).count,
                  variables.allSatisfy({ allowed.contains($0) }) else {
                throw node.fail("not a valid RFC 9298 URI template: \(text)")
            }
            for variable in variables { concrete = concrete.replacingOccurrences(of: "{\(variable)}", with: "x") }
            template = text
        }
        guard let url = URL(string: concrete), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw node.fail("not an https URL: \(text)")
        }
        guard template != nil else { return (url, nil) }
        // The template's origin. Not rebuilt from `url.host`, which drops an IPv6 literal's
        // brackets and percent-decodes: "https://::1:8443" is no URL, and unwrapping it trapped.
        var origin = URLComponents(url: url, resolvingAgainstBaseURL: false)
        origin?.percentEncodedUser = nil
        origin?.percentEncodedPassword = nil
        origin?.percentEncodedPath = ""
        origin?.percentEncodedQuery = nil
        origin?.percentEncodedFragment = nil
        guard let base = origin?.url else { throw node.fail("not an https URL: \(text)") }
        return (base, template)
    }

    private static func domains(_ node: PlistNode?) throws(ProfileError) -> [String] {
        guard let node else { return [] }
        var result: [String] = []
        for item in try node.array() {
            let name = try item.string()
            let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._")
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(allowed.contains), !name.hasPrefix("."), !name.contains("..") else {
                throw item.fail("not a domain name: \"\(name)\"")
            }
            result.append(name.lowercased())
        }
        return result
    }

    private static func isToken(_ name: String) -> Bool {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return !name.isEmpty && name.unicodeScalars.allSatisfy(token.contains)
    }
}
