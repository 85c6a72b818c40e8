import Foundation
import HTTPCore
import RelayFetch

/// robots.txt per origin, fetched through the relay chain carrying that host (so through the
/// same relays as its pages). Rules read are kept for the crawl, for the `maximumOrigins` origins
/// used most recently (one met again after it was forgotten has its file fetched again); concurrent askers for one origin
/// share one fetch. A file that cannot be read now (429, 5xx, a network failure past the relays)
/// disallows everything for a while (RFC 9309 2.3.1.3-4): its `Retry-After`, else a backoff that
/// doubles with each failure in a row; the next ask after that fetches it again. A relay failure
/// is not an answer from the origin: it is thrown and changes nothing, so the next ask tries
/// again (through a chain that works).
actor RobotsCache {
    /// What the crawler may do on an origin now.
    enum Answer: Sendable {
        /// The origin's rules; `isNew` for the one ask that fetched them.
        case rules(RobotsRules, isNew: Bool)
        /// robots.txt could not be read (`reason`, e.g. "answered 503"): nothing may be fetched
        /// before `until` (seconds since 1970), after `failures` failures in a row.
        case unavailable(reason: String, until: Double, failures: Int)
    }

    /// The outcome of one fetch of robots.txt.
    private enum Fetched: Sendable {
        case rules(RobotsRules)
        case unavailable(reason: String, retryAfter: Double?)
    }

    private indirect enum Entry {
        case fetching(id: Int, Task<Fetched, Error>, previous: Entry?)
        case known(RobotsRules)
        case unavailable(reason: String, until: Double, failures: Int)
    }

    private let productToken: String
    private let retry: RetryPolicy
    private var entries: RecentlyUsedMap<String, Entry>
    private var fetches = 0

    /// `retry` gives the backoff (base and longest delay) between fetches of a file that could not be read.
    init(productToken: String, retry: RetryPolicy = RetryPolicy(), maximumOrigins: Int = CrawlConfiguration.defaultMaximumHostsRemembered) {
        self.productToken = productToken
        self.retry = retry
        entries = RecentlyUsedMap(capacity: maximumOrigins)
    }

    /// Origins whose rules (or fetch, or failure) are kept now.
    var originCount: Int { entries.count }

    /// What the rules for `url`'s origin allow now, fetched with the session `session` makes
    /// (asked only then). Throws the `FetchError` of a relay that failed.
    func rules(for url: URL, session: @escaping @Sendable () -> Session) async throws -> Answer {
        // The serialized origin leaves a default port out: https://h and https://h:443 share one entry.
        guard let origin = url.serializedOrigin else { return .rules(.disallowAll, isNew: false) }
        let current = entries.value(for: origin)
        switch current {
        case .known(let rules): return .rules(rules, isNew: false)
        case .unavailable(let reason, let until, let failures):
            if Date().timeIntervalSince1970 < until { return .unavailable(reason: reason, until: until, failures: failures) }
        case .fetching(let id, let task, let previous):
            return try await settle(origin, id: id, task: task, previous: previous, fetchedHere: false)
        case nil: break
        }
        fetches += 1
        let previous = current
        let task = Task { [productToken] in try await Self.fetch(origin: origin, session: session(), productToken: productToken) }
        entries.set(.fetching(id: fetches, task, previous: previous), for: origin)
        return try await settle(origin, id: fetches, task: task, previous: previous, fetchedHere: true)
    }

    /// Waits for fetch `id` and turns its outcome into an answer; the first waiter to resume
    /// records it for the origin. A relay failure puts back what was known before.
    private func settle(_ origin: String, id: Int, task: Task<Fetched, Error>, previous: Entry?, fetchedHere: Bool) async throws -> Answer {
        let fetched: Fetched
        do {
            fetched = try await task.value
        } catch {
            if case .fetching(id, _, _) = entries.peek(origin) { restore(previous, for: origin) }
            throw error
        }
        let answer: Answer, entry: Entry
        switch fetched {
        case .rules(let rules):
            (answer, entry) = (.rules(rules, isNew: fetchedHere), .known(rules))
        case .unavailable(let reason, let retryAfter):
            var failures = 1
            if case .unavailable(_, _, let before) = previous { failures = before + 1 }
            let until = Date().timeIntervalSince1970 + retry.delay(retry: failures, retryAfter: retryAfter, jitter: 1)
            (answer, entry) = (.unavailable(reason: reason, until: until, failures: failures), .unavailable(reason: reason, until: until, failures: failures))
        }
        if case .fetching(id, _, _) = entries.peek(origin) { entries.set(entry, for: origin) }
        return answer
    }

    private func restore(_ entry: Entry?, for origin: String) {
        if let entry { entries.set(entry, for: origin) } else { entries.removeValue(for: origin) }
    }

    /// RFC 9309 2.3: 2xx parsed, up to five redirects followed, 4xx but 429 allows everything;
    /// 429, 5xx and network failures past the relays leave it unavailable for now.
    private static func fetch(origin: String, session: Session, productToken: String) async throws -> Fetched {
        guard var url = URL(string: origin + "/robots.txt") else { return .rules(.disallowAll) }
        for _ in 0...5 {
            let body: Data, response: HTTPResponse
            do {
                // Redirects are followed here, never by the session, whatever it was told.
                var request = HTTPRequest(url: url, headerFields: [("Cache-Control", "no-store")])
                request.followsRedirects = false
                (body, response) = try await session.data(for: request)
            } catch let error as FetchError where error.relayError != nil {
                throw error
            } catch {
                return .unavailable(reason: "could not be fetched (\(error))", retryAfter: nil)
            }
            let retryAfter = response.value(forHeaderField: "Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0) }
            switch response.statusCode {
            case 200..<300: return .rules(RobotsRules.parse(body, productToken: productToken))
            case 300..<400:
                guard let location = response.value(forHeaderField: "Location"),
                      let next = URL(string: location, relativeTo: url)?.absoluteURL else { return .rules(.allowAll) }
                url = next
            case 429: return .unavailable(reason: "answered 429", retryAfter: retryAfter)
            case 400..<500: return .rules(.allowAll)
            default: return .unavailable(reason: "answered \(response.statusCode)", retryAfter: retryAfter)
            }
        }
        return .rules(.allowAll)  // more than five redirects: robots.txt is unavailable (RFC 9309 2.3.1.2)
    }
}
