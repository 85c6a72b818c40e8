import Foundation
import OAuthFlow
import RelayFetch
import RelayTransport

/// Privacy Pass for relays (`--relay-privacy-pass ISSUER_URL`, `--relay-privacy-pass-oauth FILE`):
/// a hop with an issuer answers its relay's `PrivateToken` 407 with a token issued for that very
/// challenge (`PrivacyPassIssuer`), so each tunnel redeems a token of its own and none outlives
/// the session (they are never stored). Only HTTP/1.1 hops answer 407s with a retry.
extension RelayOptions {
    /// Checks an issuer URL: http(s) with a host, its path the issuer's root.
    static func privacyPassIssuer(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme), url.host?.isEmpty == false else {
            throw UsageError("--relay-privacy-pass needs the issuer's URL such as https://issuer.example, not \"\(text)\"")
        }
        return url.withLowercasedHost
    }

    /// Gives the session a responder for the hops (of the one --relay chain) that have an issuer;
    /// `report` gets a line for each issuance that failed, naming the hop (the fetch then fails
    /// with the relay's 407), and with `trace` (-v) one for each token issued.
    static func attachPrivacyPass(_ issuers: [Int: PendingHop.PrivacyPass], to configuration: inout Session.Configuration, trace: Bool,
                                  report: @escaping @Sendable (String) -> Void) {
        guard !issuers.isEmpty, let proxy = configuration.proxyConfigurations.first else { return }
        var byHop: [Int: PrivacyPassIssuer] = [:]
        for (index, issuer) in issuers where index < proxy.relayHops.count {
            // The chain up to the challenging hop, without a responder: issuance never recurses.
            var route = configuration
            route.proxyChallengeResponder = nil
            route.proxyConfigurations = [ProxyConfiguration(relayHops: Array(proxy.relayHops[...index]))]
            let keeper = issuer.attestationScenario.map { AccessTokenKeeper(scenario: $0, sessionConfiguration: route) }
            byHop[index + 1] = PrivacyPassIssuer(issuer: issuer.issuer, configuration: route, attestation: keeper)
        }
        let issuersByHop = byHop
        configuration.proxyChallengeResponder = { challenge, answer in
            guard let issuer = issuersByHop[challenge.hop] else { return answer(nil) }
            Task {
                let started = Date()
                do {
                    let credential = try await issuer.credential(for: challenge)
                    if trace { report("* hop \(challenge.hop) (\(challenge.relay)): Privacy Pass token from \(issuer.issuer.absoluteString) in "
                           + String(format: "%.0f ms", Date().timeIntervalSince(started) * 1000)) }
                    answer(credential)
                } catch {
                    report("relayfetch: error: hop \(challenge.hop) (\(challenge.relay)): no Privacy Pass token from \(issuer.issuer.absoluteString): \(error)")
                    answer(nil)
                }
            }
        }
    }
}
