import RelayFetch

extension RelayPool where Chain == Session {
    /// A crawl's pool: one session per chain, each covering the hosts its relay configurations
    /// cover. A single session is a pool of one.
    convenience init(sessions: [Session], baseBackoff: Double = 1, maximumHosts: Int = CrawlConfiguration.defaultMaximumHostsRemembered) {
        self.init(chains: sessions.map { ($0, $0.configuration.proxyConfigurations) }, baseBackoff: baseBackoff, maximumHosts: maximumHosts)
    }

    /// Each chain's health now, for progress lines and summaries.
    func chainHealth() -> [RelayChainHealth] {
        states().enumerated().map { index, state in
            RelayChainHealth(chain: index + 1, relays: state.relays, up: state.up, relayFailures: state.failures, pages: state.pages,
                             hosts: state.hosts)
        }
    }
}
