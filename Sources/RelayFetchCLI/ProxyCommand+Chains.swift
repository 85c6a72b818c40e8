import RelayFetch

extension ProxyCommand {
    /// The configuration each client's session is made from: the first chain's options; with
    /// `--chain` groups, every group's relay configurations too, each a chain of one pool
    /// (`RelayChainPolicy.failover`, as crawl's chains), which each session keeps for itself, so
    /// clients with different logins never share a chain choice. A group's session-wide options
    /// (origin trust, timeouts, name resolution) are the first chain's.
    static func sessionConfiguration(_ chains: [RelayOptions], warn: @escaping @Sendable (String) -> Void) async throws -> Session.Configuration {
        var configuration = try await chains[0].sessionConfiguration(warn: warn)
        guard chains.count > 1 else { return configuration }
        for chain in chains.dropFirst() {
            configuration.proxyConfigurations += try await chain.sessionConfiguration(warn: warn).proxyConfigurations
        }
        configuration.relayChainPolicy = .failover()
        return configuration
    }
}
