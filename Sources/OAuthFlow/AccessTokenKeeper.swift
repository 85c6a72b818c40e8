import Foundation
import RelayFetch

/// An access token from the identity provider, kept in memory and renewed before it expires:
/// what a relay (as its `RelayTokenProvider`) or a Privacy Pass issuer asks the client for. The
/// token comes from the grant an `OAuthScenario` names (client credentials for a service, the
/// device grant for a person), run in a fresh ephemeral session through `sessionConfiguration`'s
/// relays; a refresh token, when the provider gave one, is tried before the whole grant again.
/// Callers that ask while a token is being fetched wait for that one: one request at a time.
public actor AccessTokenKeeper {
    /// One token and when to stop handing it out.
    private struct Kept {
        let token: String
        let renewAt: Date
        let refreshToken: String?
    }

    public let scenario: OAuthScenario
    private let sessionConfiguration: Session.Configuration
    private let now: @Sendable () -> Date
    private var kept: Kept?
    private var pending: Task<Kept, any Error>?
    /// Told of each token fetched, in words without the token (`-v`).
    private var observer: (@Sendable (String) -> Void)?

    /// `scenario` must pass `OAuthScenario.requireAccessTokenGrant`; `sessionConfiguration`
    /// says how the provider is reached (its relays, its trust).
    public init(scenario: OAuthScenario, sessionConfiguration: Session.Configuration, now: @escaping @Sendable () -> Date = Date.init) {
        self.scenario = scenario
        self.sessionConfiguration = sessionConfiguration
        self.now = now
    }

    /// A token valid now: the kept one until its renewal time, else a new one. `rejected` (a
    /// token a relay refused) is never handed out again. Throws `OAuthError` or the session's
    /// `FetchError` (which names the hop that failed on the way to the provider).
    public func accessToken(replacing rejected: String? = nil) async throws -> String {
        if let kept, kept.token != rejected, now() < kept.renewAt { return kept.token }
        if let pending { return try await pending.value.token }
        let refreshToken = kept?.refreshToken
        let task = Task { [scenario, sessionConfiguration, now] in
            try await Self.fetch(scenario, through: sessionConfiguration, refreshToken: refreshToken, now: now)
        }
        pending = task
        defer { pending = nil }
        let started = now()
        let fresh = try await task.value
        kept = fresh
        if let observer {
            let renewal = fresh.renewAt.timeIntervalSince(now())
            observer("access token from \(scenario.issuer ?? scenario.endpoints?.token ?? "the provider") (\(scenario.grant ?? "")) in "
                     + String(format: "%.3f s", now().timeIntervalSince(started))
                     + (renewal.isFinite ? String(format: ", renewed in %.0f s", renewal) : ", kept until refused")
                     + (rejected != nil ? ", replacing one the relay refused" : ""))
        }
        return fresh.token
    }

    /// Has `observer` told of each token fetched from now on (when, how long it took, when it
    /// will be renewed; never the token).
    public func onFetch(_ observer: @escaping @Sendable (String) -> Void) { self.observer = observer }

    /// Runs the grant (or the refresh grant) once.
    private static func fetch(_ scenario: OAuthScenario, through configuration: Session.Configuration, refreshToken: String?,
                              now: @Sendable () -> Date) async throws -> Kept {
        let client = try await OAuthClient.connect(to: OAuthScenarioRunner.provider(scenario),
                                                   client: try OAuthScenarioRunner.clientConfiguration(scenario),
                                                   sessionConfiguration: configuration, otherOrigins: scenario.otherOrigins)
        defer { client.invalidate() }
        let started = now()
        var tokens: TokenResponse?
        // An expired or revoked refresh token is no failure: the grant runs again.
        if let refreshToken { tokens = try? await client.refresh(refreshToken) }
        if tokens == nil {
            if scenario.grant == "device_code" {
                var driver = OAuthScenarioRunner.driver(scenario)
                if scenario.login?.approveButton == nil { driver.approveButton = "Accept" }
                if scenario.login?.denyButton == nil { driver.denyButton = "Deny" }
                tokens = try await DeviceAuthorizationFlow(client: client, driver: driver,
                                                           endpoint: scenario.deviceAuthorizationEndpoint.flatMap(URL.init(string:))).run().tokens
            } else {
                tokens = try await client.clientCredentials()
            }
        }
        guard let tokens else { throw OAuthError(.invalidTokenResponse("no token")) }
        guard tokens.tokenType.lowercased() == "bearer" else {
            throw OAuthError(.invalidTokenResponse("token_type \(tokens.tokenType), not Bearer"))
        }
        return Kept(token: tokens.accessToken, renewAt: started.addingTimeInterval(renewalDelay(expiresIn: tokens.expiresIn,
                                                                                                  cap: scenario.maximumTokenLifetime)),
                    refreshToken: tokens.refreshToken ?? refreshToken)
    }

    /// Seconds after the request that a token is renewed: its life (`expires_in`, or the
    /// scenario's cap when that is shorter) less a tenth of it, at most a minute, so no tunnel
    /// starts with a token about to expire. With neither, it is kept until a relay refuses it.
    static func renewalDelay(expiresIn: Double?, cap: Double?) -> Double {
        guard let lifetime = [expiresIn, cap].compactMap({ $0 }).filter({ $0.isFinite && $0 > 0 }).min() else { return .infinity }
        return lifetime - min(60, lifetime / 10)
    }
}

extension AccessTokenKeeper: RelayTokenProvider {
    public func relayToken(replacing rejected: String?) async throws -> String {
        do {
            return try await accessToken(replacing: rejected)
        } catch {
            // Named by the provider, since the relay's hop is named around it.
            throw ProviderFailure(description: "\(scenario.issuer ?? scenario.endpoints?.token ?? "the provider"): \(error)")
        }
    }
}

/// A failure to get a token, named by the provider it came from.
private struct ProviderFailure: Error, CustomStringConvertible {
    let description: String
}
