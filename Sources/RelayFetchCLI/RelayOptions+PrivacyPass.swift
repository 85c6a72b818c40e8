import Foundation
import OAuthFlow
import RelayFetch
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

    /// Gives the session a responder for the hops (of the one --relay chain) that have an issuer.
    /// An issuance that fails fails the tunnel with `TokenIssuanceFailure` naming the hop and the
    /// issuer; with `trace` (-v), `report` gets a line for each token issued.
    static func attachPrivacyPass(_ issuers: [Int: PendingHop.PrivacyPass], to configuration: inout Session.Configuration, trace: Bool,
                                  report: @escaping @Sendable (String) -> Void) {
        guard !issuers.isEmpty, let proxy = configuration.proxyConfigurations.first else { return }
        var byHop: [Int: PrivacyPassIssuer] = [:]
        for (index, issuer) in issuers where index < proxy.relayHops.count {
            // The chain up to the challenging hop, without a responder: issuance never recurses.
            // Issuance is part of building the tunnel, so the connect timeout bounds it, and an
            // issuer's answers are small: a directory or one TokenResponse.
            var route = configuration
            route.proxyChallengeResponder = nil
            route.proxyConfigurations = [ProxyConfiguration(relayHops: Array(proxy.relayHops[...index]))]
            route.requestTimeout = min(configuration.requestTimeout, configuration.connectTimeout)
            route.maximumResponseSize = PrivacyPassIssuer.largestAnswer
            let keeper = issuer.attestationScenario.map { AccessTokenKeeper(scenario: $0, sessionConfiguration: route) }
            byHop[index + 1] = PrivacyPassIssuer(issuer: issuer.issuer, configuration: route, attestation: keeper, budget: route.requestTimeout)
        }
        let issuersByHop = byHop
        configuration.proxyChallengeResponder = { challenge, answer in
            guard let issuer = issuersByHop[challenge.hop] else { return answer(.success(nil)) }
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
}
