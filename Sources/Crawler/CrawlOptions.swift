import Foundation

/// The options that decide what a crawl fetches, as name and text value, kept in its store: a
/// rerun, or another worker on a shared store, with different ones would crawl something else
/// under the same frontier, so it is refused with the options that differ.
public struct CrawlOptions: Sendable {
    /// Names in a fixed order, each with its value as text.
    public private(set) var values: [(name: String, value: String)]

    /// The options of `configuration` with `scope` (the seeds already added to it).
    init(configuration: CrawlConfiguration, scope: CrawlScope) {
        func number(_ value: Int?) -> String { value.map(String.init) ?? "none" }
        func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.map { "\"\($0)\"" }.joined(separator: " ") }
        values = [
            ("same-domain", scope.hostRule == .sameDomain ? "yes" : "no"),
            ("seed hosts", list(scope.seedScope)),
            ("allow", list(scope.allowPatterns)),
            ("deny", list(scope.denyPatterns)),
            ("max-depth", number(scope.maximumDepth)),
            ("max-pages", number(configuration.maximumPages)),
            ("max-bytes", number(configuration.maximumBytes)),
            ("strip-query-param", list(configuration.canonicalizer.strippedQueryParameters.sorted())),
            ("robots.txt", configuration.obeyRobots ? "obey (as \(configuration.productToken))" : "ignore"),
            ("sitemaps", configuration.followsSitemaps ? "follow" : "ignore"),
            ("accept-type", list(configuration.acceptedTypes.map { $0.lowercased() }.sorted())),
            ("per-host", String(configuration.perHostConcurrency)),
            ("delay", String(configuration.delay)),
        ]
    }

    /// Options newer than some stores, with the value a store that predates them had in effect.
    private static let addedLater = ["accept-type": "none"]

    /// The options whose values differ from `stored` (options only one side has included), as
    /// "name: stored VALUE, now VALUE".
    func differences(from stored: [String: String]) -> [String] {
        var result: [String] = []
        for (name, value) in values where (stored[name] ?? Self.addedLater[name]) != value {
            result.append("\(name): stored \(stored[name] ?? "(not set)"), now \(value)")
        }
        let names = Set(values.map(\.name))
        for (name, value) in stored.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            result.append("\(name): stored \(value), now (not set)")
        }
        return result
    }

    /// What a store does with these options given the ones it holds: nothing when they agree,
    /// write them when it holds none (or when `replacing`), or throw naming the differences.
    func check(against stored: [String: String], replacing: Bool, store: String) throws -> Bool {
        if stored.isEmpty { return true }
        let differences = differences(from: stored)
        if differences.isEmpty { return false }
        if replacing { return true }
        throw CrawlError.store("\(store) holds a crawl started with other options (\(differences.joined(separator: "; "))); "
                               + "run with the stored options, or replace them (CrawlConfiguration.replacesStoredOptions)")
    }
}
