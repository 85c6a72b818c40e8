import Foundation

/// The parts of a scope a store keeps (`CrawlOptions`), as sorted text.
extension CrawlScope {
    /// The seeds' hosts, or with `.sameDomain` their registrable domains: what links are held to.
    var seedScope: [String] { (hostRule == .sameHost ? seedHosts : seedDomains).sorted() }
    var allowPatterns: [String] { allowed.map(\.pattern) }
    var denyPatterns: [String] { denied.map(\.pattern) }
}
