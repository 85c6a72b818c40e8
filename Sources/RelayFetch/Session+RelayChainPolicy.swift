extension Session.Configuration {
    /// How a host's relay configuration is chosen among those that cover it: the first one
    /// (`firstMatch`, the default), or a pool of chains that fails over (`failover`), as
    /// `relayfetch crawl --chain` and `relayfetch proxy --chain` route.
    public struct RelayChainPolicy: Sendable, Hashable {
        enum Kind: Hashable {
            case firstMatch
            case failover(rest: Double, maximumRest: Double)
        }

        let kind: Kind

        /// The first configuration that covers a host carries it, whatever becomes of its relays.
        public static let firstMatch = RelayChainPolicy(kind: .firstMatch)

        /// Each configuration that covers a host is a chain of a pool: a host sticks to one chain
        /// while it works; a chain whose relay fails rests `rest` seconds (doubling with each
        /// failure in a row, at most `maximumRest`) and its hosts move to the working chain with
        /// the fewest hosts. A request whose tunnel could not be built (nothing of it reached the
        /// origin) is sent again on the chain taken next, unless its body is a stream. With every
        /// chain that covers the host resting, a request fails with the last relay failure: never
        /// direct. A last relay's refusal to reach the target is the target's failure, not the
        /// chain's. Each session keeps its own pool (chain choice is never shared).
        public static func failover(rest: Double = 1, maximumRest: Double = 30) -> RelayChainPolicy {
            RelayChainPolicy(kind: .failover(rest: max(0, rest), maximumRest: max(0, maximumRest)))
        }
    }
}
