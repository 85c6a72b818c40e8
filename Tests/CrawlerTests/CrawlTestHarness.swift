import Foundation
import Locking
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// Runs a crawl in-process through real relays against a `CrawlSite`, collecting the records.
struct CrawlTestHarness {
    /// Relay A (squid) with its token and the test CA.
    static var relayA: [ProxyConfiguration.RelayHop] { [TestServers.relayHop()] }
    /// Relays A then B, both HTTP/2 (nghttpx), each with its own token.
    static var chainAB: [ProxyConfiguration.RelayHop] {
        [TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2),
         TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.http2RelayBURL, relayProtocol: .http2)]
    }

    /// Crawls `seeds` with `configure` applied to a default configuration (robots obeyed,
    /// utm_source stripped); returns the records and the final progress.
    static func crawl(_ seeds: [String], hops: [ProxyConfiguration.RelayHop] = relayA, store: (any CrawlStore)? = nil,
                      configure: (inout CrawlConfiguration) -> Void = { _ in }) async throws -> ([CrawlRecord], CrawlProgress) {
        try await crawl(seeds, chains: [hops], store: store, configure: configure)
    }

    /// The same through a pool of chains, one session each.
    static func crawl(_ seeds: [String], chains: [[ProxyConfiguration.RelayHop]], store: (any CrawlStore)? = nil, chainBackoff: Double = 1,
                      configure: (inout CrawlConfiguration) -> Void = { _ in }) async throws -> ([CrawlRecord], CrawlProgress) {
        try await crawl(seeds, sessionConfigurations: chains.map { TestServers.configuration(hops: $0) }, store: store,
                        chainBackoff: chainBackoff, configure: configure)
    }

    /// The same with a session made from each configuration (redirects then turned off).
    static func crawl(_ seeds: [String], sessionConfigurations: [Session.Configuration], store: (any CrawlStore)? = nil,
                      chainBackoff: Double = 1,
                      configure: (inout CrawlConfiguration) -> Void = { _ in }) async throws -> ([CrawlRecord], CrawlProgress) {
        let sessions = try sessionConfigurations.map { configuration in
            var sessionConfiguration = configuration
            sessionConfiguration.maximumRedirects = 0
            sessionConfiguration.allowsDirectConnections = false
            return try Session(configuration: sessionConfiguration)
        }
        defer { sessions.forEach { $0.invalidate() } }
        var configuration = CrawlConfiguration(scope: try CrawlScope())
        configuration.canonicalizer.strippedQueryParameters = ["utm_source"]
        configuration.retry.baseDelay = 0.05
        configure(&configuration)
        let crawler = try Crawler(configuration: configuration, sessions: sessions, store: try store ?? SQLiteCrawlStore(path: nil),
                                  chainBackoff: chainBackoff)
        let records = RecordList()
        let progress = try await crawler.run(seeds: seeds.map { URL(string: $0)! }) { records.append($0.record) }
        return (records.all, progress)
    }
}

final class RecordList: Sendable {
    private let records = Locked<[CrawlRecord]>([])
    func append(_ record: CrawlRecord) { records.withLock { $0.append(record) } }
    var all: [CrawlRecord] { records.withLock { $0 } }
}
