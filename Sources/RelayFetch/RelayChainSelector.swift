import RelayTransport

/// Which of a session's relay configurations carries a host, by its `RelayChainPolicy`: the
/// first that covers it, or a `RelayPool` whose chains are the configurations (one pool per
/// session, shared with the sessions sharing its connections), told how each tunnel ended.
struct RelayChainSelector: Sendable {
    let configurations: [ProxyConfiguration]
    /// nil with `firstMatch`.
    let pool: RelayPool<Int>?

    init(_ configuration: Session.Configuration) {
        let proxies = configuration.proxyConfigurations
        configurations = proxies
        guard case .failover(let rest, let maximumRest) = configuration.relayChainPolicy.kind, !proxies.isEmpty else {
            pool = nil
            return
        }
        pool = RelayPool(chains: proxies.indices.map { ($0, [proxies[$0]]) }, baseBackoff: rest, maximumBackoff: maximumRest,
                         maximumHosts: RelayPoolHealth.defaultMaximumHosts)
    }

    /// The configuration (and its index) that carries `host` now; nil when none covers it.
    /// Throws the last relay failure when every chain of the pool that covers it rests.
    func configuration(forHost host: String) throws(FetchError) -> (index: Int, proxy: ProxyConfiguration)? {
        guard let pool else {
            return configurations.firstIndex { $0.covers(host: host) }.map { ($0, configurations[$0]) }
        }
        switch pool.choice(for: host) {
        case .chain(let index, _): return (index, configurations[index])
        case .uncovered: return nil
        case .allDown: throw Self.allDownError(pool.lastError(for: host), reason: pool.downReason(for: host))
        }
    }

    /// Tells the pool how a tunnel on chain `index` ended; returns whether `error` was the
    /// chain's failure (the pool then rests it). Nothing without a pool.
    @discardableResult
    func report(chain index: Int, _ error: RelayError?) -> Bool {
        guard let pool else { return false }
        guard let error, error.isChainFailure(chainLength: chainLength(index)) else {
            pool.report(chain: index, failure: nil)
            return false
        }
        pool.report(chain: index, failure: error)
        return true
    }

    /// Hops of chain `index` as relay failures count them (an OHTTP relay is one more).
    private func chainLength(_ index: Int) -> Int {
        configurations[index].relayHops.count + (configurations[index].obliviousHTTP == nil ? 0 : 1)
    }

    /// What a request meets when every chain for its host rests: the last relay failure, so a
    /// caller sees a relay error as with one chain down.
    static func allDownError(_ last: RelayError?, reason: String) -> FetchError {
        last.map { FetchError(relay: $0) } ?? FetchError(.transfer(reason))
    }
}
