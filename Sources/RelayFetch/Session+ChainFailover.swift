import RelayTransport

extension Session {
    /// Runs `attempt` on the route for `request`'s URL. With a pool of chains
    /// (`RelayChainPolicy.failover`), tells it how the attempt ended, and after the chain's
    /// failure while its tunnel was built (nothing reached the origin) runs it again on the chain
    /// the pool takes next, at most once per other chain, unless the body is a stream (it cannot
    /// be read twice). With every chain for the host resting, the route throws: never direct.
    /// A result for which `usedChain` is false (an answer from the cache) tells the pool nothing.
    func failingOver<T>(_ request: HTTPRequest, usedChain: (T) -> Bool = { _ in true },
                        _ attempt: (any Route) async throws -> T) async throws -> T {
        var failovers = 0
        while true {
            let (route, chain) = try chainRoute(for: request.url)
            guard let chain, let pool = chains.pool else { return try await attempt(route) }
            do {
                let result = try await attempt(route)
                if usedChain(result) { chains.report(chain: chain, nil) }
                return result
            } catch let error as FetchError {
                let relayError = error.relayError.map(RelayError.init)
                guard chains.report(chain: chain, relayError), relayError?.failedDuringSetup == true, request.bodyStream == nil,
                      failovers + 1 < pool.chainCount else { throw error }
                failovers += 1
            }
        }
    }
}
