import Foundation
import NameResolution
import RelayTransport

/// The names one session resolves itself, through its privacy context's encrypted resolver and
/// its own in-memory cache: the first relay's host (as the chain builder's `HostResolver`),
/// direct hosts and an OHTTP relay reached directly (pinned for libcurl). When encrypted
/// resolution is required, a failure is an error; otherwise the system resolver is asked next.
final class SessionNameResolver: HostResolver, Sendable {
    let stub: StubResolver?
    let required: Bool

    init(stub: StubResolver?, required: Bool) {
        self.stub = stub
        self.required = required
    }

    /// The addresses of `host` as text ("127.0.0.11", "::1"); IP literals as they are.
    func addresses(of host: String) async throws(FetchError) -> [String] {
        if SocketAddress.literal(host, port: 0) != nil { return [host] }
        guard let stub else {
            throw FetchError(.nameResolution("cannot resolve \(host): encrypted name resolution is required but no resolver is configured"))
        }
        do {
            return try await stub.addresses(of: host).map { SocketAddress.text(of: $0.count == 4 ? SocketAddress.ipv4($0, port: 0) : SocketAddress.ipv6($0, port: 0)) }
        } catch {
            throw FetchError(.nameResolution(error.description))
        }
    }

    func resolve(host: String, port: UInt16, completion: @escaping @Sendable (Result<[Data], ResolveFailure>) -> Void) {
        Task {
            do {
                let texts = try await addresses(of: host)
                completion(.success(texts.compactMap { SocketAddress.literal($0, port: port) }))
            } catch {
                if required { return completion(.failure(ResolveFailure(reason: "\(error)"))) }
                completion(SocketAddress.systemAddresses(host: host, port: port))
            }
        }
    }

    func serviceHint(host: String, completion: @escaping @Sendable (Result<HTTP3Hint?, ResolveFailure>) -> Void) {
        guard let stub else { return completion(.success(nil)) }
        Task {
            async let bindings = try? await stub.serviceBindings(of: host)
            do {
                _ = try await addresses(of: host)  // cached for the connect that follows
            } catch {
                _ = await bindings
                // Not required: the system resolver may still know it; `resolve` will ask it.
                return completion(required ? .failure(ResolveFailure(reason: "\(error)")) : .success(nil))
            }
            // The most preferred service-mode record for the host itself (target "."), RFC 9460 §3.
            guard let record = (await bindings ?? []).first(where: { $0.priority > 0 && ($0.target.isEmpty || $0.target == host.lowercased()) }) else {
                return completion(.success(nil))
            }
            completion(.success(HTTP3Hint(offersHTTP3: record.alpn.contains("h3"), port: record.port)))
        }
    }

    /// Addresses to pin for a host libcurl would otherwise resolve itself; nil lets libcurl
    /// resolve it (encrypted resolution not required, and the resolver failed).
    func pinnedAddresses(for host: String) async throws(FetchError) -> [String]? {
        do {
            return try await addresses(of: host)
        } catch {
            if required { throw error }
            return nil
        }
    }
}
