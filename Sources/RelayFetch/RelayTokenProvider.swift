import RelayTransport

/// Gives a relay hop its bearer token when the token is not a fixed header field: fetched from
/// an identity provider, kept, and renewed before it expires (OAuthFlow's `AccessTokenKeeper`
/// is one). The session asks it before each tunnel through the hop and sends the answer as that
/// hop's `Proxy-Authorization: Bearer ...`, on that hop's CONNECT only.
public protocol RelayTokenProvider: AnyObject, Sendable {
    /// A token valid now. `rejected` is the token the hop just refused with 407: return another
    /// (fetch a fresh one), or throw. What is thrown is shown to users: no secrets in it.
    func relayToken(replacing rejected: String?) async throws -> String
}

/// A `RelayTokenProvider` as a `RelayHop` holds it. Hops compare equal only when they hold the
/// same provider object.
public struct RelayTokenSource: Sendable, Hashable {
    public let provider: any RelayTokenProvider
    let reference: HopTokenReference

    public init(_ provider: any RelayTokenProvider) {
        self.provider = provider
        reference = HopTokenReference(AsyncHopTokenSource(provider: provider))
    }

    public static func == (lhs: RelayTokenSource, rhs: RelayTokenSource) -> Bool { lhs.reference == rhs.reference }
    public func hash(into hasher: inout Hasher) { hasher.combine(reference) }
}

/// The transport's callback view of an async provider: each question runs as a task.
private final class AsyncHopTokenSource: HopTokenSource {
    let provider: any RelayTokenProvider

    init(provider: any RelayTokenProvider) { self.provider = provider }

    func token(replacing rejected: String?, completion: @escaping @Sendable (Result<String, HopTokenFailure>) -> Void) {
        Task { [provider] in
            do {
                completion(.success(try await provider.relayToken(replacing: rejected)))
            } catch {
                completion(.failure(HopTokenFailure(reason: "\(error)")))
            }
        }
    }
}
