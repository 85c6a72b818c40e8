import Foundation
import RelayFetch

/// robots.txt per origin, fetched once through the relay chain carrying that host (so through
/// the same relays as its pages) and kept for the crawl. Concurrent askers for one origin share
/// one fetch. A relay failure is not an answer from the origin: it is thrown and not kept, so
/// the next ask tries again (through a chain that works).
actor RobotsCache {
    private let productToken: String
    private var entries: [String: Task<RobotsRules, Error>] = [:]

    init(productToken: String) {
        self.productToken = productToken
    }

    /// The rules for `url`'s origin, and whether this call fetched them (true once per origin),
    /// fetched with the session `session` makes (asked only then). Throws the `FetchError` of a
    /// relay that failed.
    func rules(for url: URL, session: @escaping @Sendable () -> Session) async throws -> (RobotsRules, isNew: Bool) {
        guard let origin = Self.origin(of: url) else { return (.disallowAll, false) }
        if let task = entries[origin] { return (try await task.value, false) }
        let task = Task { [productToken] in try await Self.fetch(origin: origin, session: session(), productToken: productToken) }
        entries[origin] = task
        do {
            return (try await task.value, true)
        } catch {
            entries[origin] = nil
            throw error
        }
    }

    /// RFC 9309 2.3: 2xx parsed, up to five redirects followed, 4xx allows everything, 5xx and
    /// network failures (past the relays) disallow everything.
    private static func fetch(origin: String, session: Session, productToken: String) async throws -> RobotsRules {
        guard var url = URL(string: origin + "/robots.txt") else { return .disallowAll }
        for _ in 0...5 {
            let body: Data, response: HTTPResponse
            do {
                let request = HTTPRequest(url: url, headerFields: [("Cache-Control", "no-store")])
                (body, response) = try await session.data(for: request)
            } catch let error as FetchError where error.relayError != nil {
                throw error
            } catch {
                return .disallowAll
            }
            switch response.statusCode {
            case 200..<300: return RobotsRules.parse(body, productToken: productToken)
            case 300..<400:
                guard let location = response.value(forHeaderField: "Location"),
                      let next = URL(string: location, relativeTo: url)?.absoluteURL else { return .allowAll }
                url = next
            case 400..<500: return .allowAll
            default: return .disallowAll
            }
        }
        return .allowAll  // more than five redirects: robots.txt is unavailable (RFC 9309 2.3.1.2)
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}
