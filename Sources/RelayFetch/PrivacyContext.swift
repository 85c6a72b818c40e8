import Foundation
import NameResolution
import Locking

/// How a session resolves the names it dials itself (the first relay's host, hosts excluded from
/// relaying, an OHTTP relay), shaped like Apple's `NWParameters.PrivacyContext`. Names behind a
/// relay are never resolved locally, with or without one.
///
/// Answers are cached in memory by each session on its own, never on disk; `flushCache()`
/// empties the caches of every session made with this context.
public final class PrivacyContext: Sendable {
    public let description: String
    private let state = Locked(State())

    private struct State {
        var required = false
        var configured: ResolverConfiguration?
        var caches: [WeakCache] = []
    }

    private struct WeakCache {
        weak var cache: DNSCache?
    }

    public init(description: String = "relayfetch") {
        self.description = description
    }

    /// With `require` true, names resolve only through `fallbackResolver`: its failure (or its
    /// absence) is an error, never a fall back to the system's plain-text resolver. With `require`
    /// false, `fallbackResolver` is used first and the system resolver when it fails.
    public func requireEncryptedNameResolution(_ require: Bool, fallbackResolver: ResolverConfiguration?) {
        state.withLock {
            $0.required = require
            $0.configured = fallbackResolver
        }
    }

    /// Forgets the resolved names of every session made with this context.
    public func flushCache() {
        state.withLock { $0.caches.compactMap(\.cache) }.forEach { $0.flush() }
    }

    public var requiresEncryptedNameResolution: Bool { state.withLock { $0.required } }
    public var resolver: ResolverConfiguration? { state.withLock { $0.configured } }

    /// A new cache for one session, flushed by `flushCache()` while the session lives.
    func makeCache() -> DNSCache {
        let cache = DNSCache()
        state.withLock {
            $0.caches.removeAll { $0.cache == nil }
            $0.caches.append(WeakCache(cache: cache))
        }
        return cache
    }
}
