/// Where a hop's bearer token comes from when it is not a fixed header field: an identity
/// provider the token is fetched from, kept and refreshed by its owner (RelayFetch adapts its
/// public `RelayTokenProvider` to this). The chain builder asks for a token before each tunnel
/// and sends it as that hop's `Proxy-Authorization: Bearer ...` on that hop's CONNECT only.
package protocol HopTokenSource: AnyObject, Sendable {
    /// Calls `completion` (on any thread) with a token valid now, or why there is none.
    /// `rejected` is the token the hop just refused with 407: a source hands it out no more.
    func token(replacing rejected: String?, completion: @escaping @Sendable (Result<String, HopTokenFailure>) -> Void)
}

/// Why a hop's token source has no token (the identity provider could not be reached, refused
/// the client...), in words that carry no secret.
package struct HopTokenFailure: Error, Sendable {
    package let reason: String
    package init(reason: String) { self.reason = reason }
}

/// A hop's token source inside a `RelayEndpoint`, which is compared and hashed (connection
/// pools key on endpoints): two are equal only when they are the same source.
package struct HopTokenReference: Sendable, Hashable {
    package let source: any HopTokenSource

    package init(_ source: any HopTokenSource) { self.source = source }

    package static func == (lhs: HopTokenReference, rhs: HopTokenReference) -> Bool { lhs.source === rhs.source }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(source)) }
}
