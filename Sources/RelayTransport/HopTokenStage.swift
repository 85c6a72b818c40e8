import HTTPCore

/// The step before a chain is built when some of its hops take tokens from a `HopTokenSource`:
/// each such hop gets its source's current token as its `Proxy-Authorization: Bearer ...`
/// field, so the connectors write it on that hop's CONNECT and nowhere else (the field lives on
/// the hop's `RelayEndpoint`, like any hop header). Loop thread only.
enum HopTokenStage {
    static let fieldName = "Proxy-Authorization"

    /// `hops` with their tokens filled in, and the token each hop got (by 1-based index), or the
    /// error naming the first hop whose source had none. `rejected`: tokens hops refused with
    /// 407, which their sources replace. `completion` runs on `loop`.
    static func fill(_ hops: [RelayEndpoint], rejected: [Int: String], loop: EventLoop,
                     completion: @escaping (Result<([RelayEndpoint], [Int: String]), RelayError>) -> Void) {
        fill(hops, from: 1, tokens: [:], rejected: rejected, loop: loop, completion: completion)
    }

    // One hop after the other: sources keep their tokens, so all but the first tunnel of a
    // token's life get it at once, and a hop's failure stops the build before later ones ask.
    private static func fill(_ hops: [RelayEndpoint], from index: Int, tokens: [Int: String], rejected: [Int: String], loop: EventLoop,
                             completion: @escaping (Result<([RelayEndpoint], [Int: String]), RelayError>) -> Void) {
        guard let next = hops.indices.dropFirst(index - 1).first(where: { hops[$0].tokenSource != nil }).map({ $0 + 1 }) else {
            return completion(.success((hops, tokens)))
        }
        let source = hops[next - 1].tokenSource!.source
        let hop = HopRegistry.describe(hop: next, of: hops, negotiated: nil)
        // The source answers on any thread; the rest of the build belongs to the loop (a session
        // that ended meanwhile runs nothing more).
        source.token(replacing: rejected[next], completion: loop.hopping { (result: Result<String, HopTokenFailure>) in
            switch result {
            case .failure(let failure):
                completion(.failure(RelayError(hop: hop, cause: .tokenUnavailable(failure.reason))))
            case .success(let token):
                var hops = hops
                hops[next - 1].headerFields.removeAll { $0.name.lowercased() == fieldName.lowercased() }
                hops[next - 1].headerFields.append((name: fieldName, value: "Bearer \(token)"))
                var tokens = tokens
                tokens[next] = token
                fill(hops, from: next + 1, tokens: tokens, rejected: rejected, loop: loop, completion: completion)
            }
        })
    }
}
