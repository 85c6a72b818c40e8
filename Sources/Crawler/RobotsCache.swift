import Foundation
import RelayFetch

/// robots.txt per origin, fetched once through the crawl's session (so through the same relays
/// as the pages) and kept for the crawl. Concurrent askers for one origin share one fetch.
actor RobotsCache {
    private let session: Session
    private let productToken: String
    private var entries: [String: Task<RobotsRules, Never>] = [:]

    init(session: Session, productToken: String) {
        self.session = session
        self.productToken = productToken
    }

    /// The rules for `url`'s origin, and whether this call fetched them (true once per origin).
    func rules(for url: URL) async -> (RobotsRules, isNew: Bool) {
        guard let origin = Self.origin(of: url) else { return (.disallowAll, false) }
        if let task = entries[origin] { return (await task.value, false) }
        let task = Task { [session, productToken] in await Self.fetch(origin: origin, session: session, productToken: productToken) }
        entries[origin] = task
        return (await task.value, true)
    }

    /// RFC 9309 2.3: 2xx parsed, up to five redirects followed, 4xx allows everything, 5xx and
    /// network failures disallow everything.
    private static func fetch(origin: String, session: Session, productToken: String) async -> RobotsRules {
        guard var url = URL(string: origin + "/robots.txt") else { return .disallowAll }
        for _ in 0...5 {
            let body: Data, response: HTTPResponse
            do {
                var request = HTTPRequest(url: url, headerFields: [("Cache-Control", "no-store")])
                request.httpShouldHandleCookies = false
                (body, response) = try await session.data(for: request)
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
