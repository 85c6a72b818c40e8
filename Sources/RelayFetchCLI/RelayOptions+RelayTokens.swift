import Foundation
import OAuthFlow
import RelayFetch
import RelayProfiles

/// Relay tokens from an identity provider (`--relay-token-oauth`, a profile's
/// `RelayTokenOAuthScenario`): each such hop gets an `AccessTokenKeeper` as its token source.
///
/// How the provider is reached: through the same relays as everything else, up to and
/// including the hop the token is for, so it sees that relay's address and never the client's.
/// That last hop is asked without the token (there is none yet, or it was just refused): a
/// relay that checks IdP tokens must let its own provider through without one, as zero-trust
/// proxies let their login pages through. Hops before it send their own tokens.
extension RelayOptions {
    /// Loads and checks a token scenario; a file that cannot serve is a usage error (exit 2).
    static func tokenScenario(_ path: String, option: String) throws -> OAuthScenario {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(option) \(path): cannot read the file") }
        do {
            let scenario = try OAuthScenario.load(data, file: path)
            try scenario.requireAccessTokenGrant(file: path)
            return scenario
        } catch {
            throw UsageError("\(option) \(error)")
        }
    }

    /// The token scenarios a profile's relays name, by hop index; paths are relative to the
    /// profile's folder.
    static func tokenScenarios(of payload: ManagedRelayPayload, profilePath: String) throws -> [Int: OAuthScenario] {
        var scenarios: [Int: OAuthScenario] = [:]
        let folder = URL(fileURLWithPath: profilePath).deletingLastPathComponent()
        for (index, relay) in payload.relays.enumerated() {
            guard let path = relay.relayTokenScenario else { continue }
            let resolved = path.hasPrefix("/") ? path : folder.appendingPathComponent(path).path
            scenarios[index] = try tokenScenario(resolved, option: "\(profilePath): RelayTokenOAuthScenario")
        }
        return scenarios
    }

    /// Gives each hop with a scenario its keeper, nearest hop first, so that a keeper's chain to
    /// the provider already has the keepers of the hops before its own.
    static func attachTokenKeepers(_ scenarios: [[Int: OAuthScenario]], to configuration: inout Session.Configuration) {
        for (proxyIndex, byHop) in scenarios.enumerated() where proxyIndex < configuration.proxyConfigurations.count {
            for hopIndex in byHop.keys.sorted() where hopIndex < configuration.proxyConfigurations[proxyIndex].relayHops.count {
                var chain = Array(configuration.proxyConfigurations[proxyIndex].relayHops[...hopIndex])
                chain[hopIndex].relayTokenSource = nil
                var providerConfiguration = configuration
                providerConfiguration.proxyConfigurations = [ProxyConfiguration(relayHops: chain)]
                let keeper = AccessTokenKeeper(scenario: byHop[hopIndex]!, sessionConfiguration: providerConfiguration)
                configuration.proxyConfigurations[proxyIndex].relayHops[hopIndex].relayTokenSource = RelayTokenSource(keeper)
            }
        }
    }

    /// For `-v`: a line for each token a hop's keeper fetches, naming the hop.
    func reportTokenFetches(of session: Session, io: CommandIO) async {
        for proxy in session.configuration.proxyConfigurations {
            for (index, hop) in proxy.relayHops.enumerated() {
                guard let keeper = hop.relayTokenSource?.provider as? AccessTokenKeeper else { continue }
                await keeper.onFetch { io.log("* hop \(index + 1): \($0)") }
            }
        }
    }
}
