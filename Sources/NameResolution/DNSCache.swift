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
    }

    /// Remembers that `name` does not exist (for `emptyAnswerSeconds`).
    public func storeNonexistent(_ name: String) {
        let expires = clock() + Double(Self.emptyAnswerSeconds)
        nonexistent.withLock { $0[DNSMessage.normalized(name)] = expires }
    }

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
