import Foundation
import Locking

/// A session's resolved names, in memory only and never written anywhere: each answer is kept
/// for its TTL (capped at a day), and empty answers and names that do not exist (NXDOMAIN, for
/// every type: RFC 2308) for 30 seconds. Thread-safe.
public final class DNSCache: Sendable {
    private struct Key: Hashable {
        let name: String
        let type: DNSRecordType
    }
    private struct Entry {
        let records: [DNSRecord]
        let expires: Double
    }

    private let entries = Locked<[Key: Entry]>([:])
    /// Names the resolver said do not exist, and until when that is believed.
    private let nonexistent = Locked<[String: Double]>([:])
    private let clock: @Sendable () -> Double
    /// How long an answer with no records (the name has no such type) is kept.
    public static let emptyAnswerSeconds: UInt32 = 30

    /// `clock` gives monotonic seconds (tests pass their own).
    public init(clock: @escaping @Sendable () -> Double = { DNSCache.monotonicSeconds() }) {
        self.clock = clock
    }

    /// The cached records of `type` for `name`, or nil when none are cached or they expired.
    public func lookup(_ name: String, type: DNSRecordType) -> [DNSRecord]? {
        let key = Key(name: DNSMessage.normalized(name), type: type)
        let now = clock()
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.records
        }
    }

    /// Keeps `records` for `ttl` seconds (nothing for a TTL of 0).
    public func store(_ records: [DNSRecord], for name: String, type: DNSRecordType, ttl: UInt32) {
        let seconds = records.isEmpty ? min(ttl, Self.emptyAnswerSeconds) : min(ttl, 86_400)
        guard seconds > 0 else { return }
        let key = Key(name: DNSMessage.normalized(name), type: type)
        let expires = clock() + Double(seconds)
        entries.withLock { $0[key] = Entry(records: records, expires: expires) }
        if !records.isEmpty { nonexistent.withLock { _ = $0.removeValue(forKey: key.name) } }
    }

    /// Remembers that `name` does not exist (for `emptyAnswerSeconds`), unless records of it are
    /// cached (a resolver that answers NXDOMAIN for one type only is wrong for the others).
    /// Expired names are dropped once many are held, so dead names cannot pile up.
    public func storeNonexistent(_ name: String) {
        let key = DNSMessage.normalized(name), now = clock()
        let known = entries.withLock { entries in
            [DNSRecordType.a, .aaaa, .https, .svcb, .cname].contains { type in
                entries[Key(name: key, type: type)].map { !$0.records.isEmpty && $0.expires > now } ?? false
            }
        }
        guard !known else { return }
        nonexistent.withLock { names in
            if names.count >= Self.nonexistentPruneThreshold { names = names.filter { $0.value > now } }
            names[key] = now + Double(Self.emptyAnswerSeconds)
        }
    }

    /// How many nonexistent names are held before the expired ones are dropped.
    static let nonexistentPruneThreshold = 4096

    /// True while `name` is remembered as not existing.
    public func isNonexistent(_ name: String) -> Bool {
        let key = DNSMessage.normalized(name), now = clock()
        return nonexistent.withLock { names in
            guard let expires = names[key] else { return false }
            guard expires > now else {
                names[key] = nil
                return false
            }
            return true
        }
    }

    /// Forgets every answer.
    public func flush() {
        entries.withLock { $0.removeAll() }
        nonexistent.withLock { $0.removeAll() }
    }

    @Sendable public static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
