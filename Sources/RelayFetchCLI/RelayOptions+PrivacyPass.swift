import Foundation
import OAuthFlow
import RelayFetch
import RelayProfiles
import RelayTransport

/// Privacy Pass for relays (`--relay-privacy-pass ISSUER_URL`, `--relay-privacy-pass-oauth FILE`):
/// a hop with an issuer answers its relay's `PrivateToken` 407 with a token issued for that very
/// challenge (`PrivacyPassIssuer`), so each tunnel redeems a token of its own and none outlives
/// the session (they are never stored), over HTTP/1.1, HTTP/2 and HTTP/3 hops alike.
extension RelayOptions {
    /// Checks an issuer URL: http(s) with a host, its path the issuer's root.
    static func privacyPassIssuer(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme), url.host?.isEmpty == false else {
            throw UsageError("--relay-privacy-pass needs the issuer's URL such as https://issuer.example, not \"\(text)\"")
        }
        return url.withLowercasedHost
    }

    /// The Privacy Pass issuers a profile's relays name (`RelayPrivacyPassIssuer`, attested with
    /// `RelayPrivacyPassOAuthScenario`, a path relative to the profile's folder), by hop index.
    static func privacyPassIssuers(of payload: ManagedRelayPayload, profilePath: String) throws -> [Int: PendingHop.PrivacyPass] {
        var issuers: [Int: PendingHop.PrivacyPass] = [:]
        let folder = URL(fileURLWithPath: profilePath).deletingLastPathComponent()
        for (index, relay) in payload.relays.enumerated() {
            guard let issuer = relay.privacyPassIssuer else { continue }
            var attestation: OAuthScenario?
            if let path = relay.privacyPassAttestationScenario {
                let resolved = path.hasPrefix("/") ? path : folder.appendingPathComponent(path).path
                attestation = try tokenScenario(resolved, option: "\(profilePath): RelayPrivacyPassOAuthScenario")
            }
            issuers[index] = PendingHop.PrivacyPass(issuer: issuer.withLowercasedHost, attestationScenario: attestation)
        }
        return issuers
    }

    /// Gives the session a responder for the hops that have an issuer, per proxy configuration
    /// (`issuers[i]` for `proxyConfigurations[i]`, by 0-based hop index). A challenge is matched
    /// to its issuer by hop index and, where several chains have one at that index, by the
    /// relay's host:port. An issuance that fails fails the tunnel with `TokenIssuanceFailure`
    /// naming the hop and the issuer; with `trace` (-v), `report` gets a line per token issued.
    static func attachPrivacyPass(_ issuers: [[Int: PendingHop.PrivacyPass]], to configuration: inout Session.Configuration, trace: Bool,
                                  report: @escaping @Sendable (String) -> Void) {
        var byHop: [Int: [(relays: Set<String>, issuer: PrivacyPassIssuer)]] = [:]
        for (proxy, hops) in zip(configuration.proxyConfigurations, issuers) {
            for (index, issuer) in hops where index < proxy.relayHops.count {
                // The chain up to the challenging hop, without a responder: issuance never recurses.
                // Issuance is part of building the tunnel, so the connect timeout bounds it, and an
                // issuer's answers are small: a directory or one TokenResponse.
                var route = configuration
                route.proxyChallengeResponder = nil
                route.proxyConfigurations = [ProxyConfiguration(relayHops: Array(proxy.relayHops[...index]))]
                route.requestTimeout = min(configuration.requestTimeout, configuration.connectTimeout)
                route.maximumResponseSize = PrivacyPassIssuer.largestAnswer
                let keeper = issuer.attestationScenario.map { AccessTokenKeeper(scenario: $0, sessionConfiguration: route) }
                let hop = proxy.relayHops[index]
                let relays = Set([hop.http2RelayEndpoint, hop.http3RelayEndpoint].compactMap { $0.map(Self.authority) })
                byHop[index + 1, default: []].append((relays, PrivacyPassIssuer(issuer: issuer.issuer, configuration: route, attestation: keeper,
                                                                                budget: route.requestTimeout)))
            }
        }
        guard !byHop.isEmpty else { return }
        let issuersByHop = byHop
        configuration.proxyChallengeResponder = { challenge, answer in
            let candidates = issuersByHop[challenge.hop] ?? []
            guard let issuer = (candidates.count == 1 ? candidates.first : candidates.first { $0.relays.contains(challenge.relay) })?.issuer else {
                return answer(.success(nil))
            }
            let started = Date()
            issuer.answer(challenge) { result in
                if trace, case .success = result {
                    report("* hop \(challenge.hop) (\(challenge.relay)): Privacy Pass token from \(issuer.issuer.absoluteString) in "
                           + String(format: "%.0f ms", Date().timeIntervalSince(started) * 1000))
                }
                answer(result.map { $0 })
            }
        }
    }

    /// A relay URL's host:port as the transport names a hop (443 unless given).
    private static func authority(_ url: URL) -> String {
        let host = (url.host ?? "").lowercased()
        return "\(host.contains(":") ? "[\(host)]" : host):\(url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))"
    }
}
