import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// `PrivacyContext.requireEncryptedNameResolution`: the names relayfetch resolves itself (the
/// first relay's, excluded hosts') go to the encrypted resolver, proven from its log; answers are
/// cached per session; failures are errors. (ProcessLevelPrivacyTests+DNS shows, under strace,
/// that no plain DNS happens at all.)
final class EncryptedNameResolutionTests: XCTestCase {
    private var dns: EncryptedDNSServer!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        dns = try EncryptedDNSServer.shared()
    }

    /// Relay A named relay.test, a name only the encrypted resolver knows.
    private func configuration(_ resolver: ResolverConfiguration, required: Bool = true) -> (Session.Configuration, PrivacyContext) {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(url: URL(string: "https://relay.test:3129")!)])
        let context = PrivacyContext()
        context.requireEncryptedNameResolution(required, fallbackResolver: resolver)
        configuration.privacyContext = context
        return (configuration, context)
    }

    private var doh: ResolverConfiguration { .https(EncryptedDNSServer.dohURL, serverAddresses: [EncryptedDNSServer.address]) }

    func testRelayNameIsResolvedOverDoHWithHTTP2AndCachedPerSession() async throws {
        let before = try dns.questions().count, nginxBefore = try dns.nginxRequests().count
        let marker = TestServers.marker("doh")
        let (configuration, context) = configuration(doh)
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue],
                       "127.0.0.11", "the origin was reached through relay A")
        let asked = try dns.questions(after: before, atLeast: 3)
        XCTAssertEqual(Set(asked.map { "\($0[DNSQuestionField.service.rawValue]) \($0[DNSQuestionField.name.rawValue]) \($0[DNSQuestionField.type.rawValue])" }),
                       ["doh relay.test A", "doh relay.test AAAA", "doh relay.test HTTPS"], "addresses, and the HTTPS record for HTTP/3")
        XCTAssertEqual(Set(asked.map { $0[DNSQuestionField.method.rawValue] }), ["GET"])
        XCTAssertEqual(Set(asked.map { $0[DNSQuestionField.client.rawValue] }), ["127.0.0.1"])
        // nginx in front of the resolver: the DoH requests came over HTTP/2.
        XCTAssertEqual(Set(try dns.nginxRequests().dropFirst(nginxBefore).map { $0[1] }), ["HTTP/2.0"])

        // A second session has its own cache and asks again; the first one does not (a new
        // tunnel for origin2.test dials relay.test again from its cache).
        let second = try Session(configuration: configuration)
        defer { second.invalidate() }
        _ = try await second.data(from: URL(string: "https://origin2.test/index.html")!)
        XCTAssertEqual(try dns.questions(after: before, atLeast: 6).count, 6, "the second session asked for itself")
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)
        session.flushResolverCache()
        XCTAssertEqual(try dns.questions().count - before, 6, "answers came from the session's cache")
        context.flushCache()
        let third = try Session(configuration: configuration)
        defer { third.invalidate() }
        _ = try await third.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertEqual(try dns.questions(after: before, atLeast: 9).count, 9)
    }

    func testPOSTAndDoTCarryTheQuestionsToo() async throws {
        var post = doh
        post.usesPOST = true
        for (resolver, service, method) in [(post, "doh", "POST"), (ResolverConfiguration.tls("dns.test", serverAddresses: [EncryptedDNSServer.address]), "dot", "-")] {
            let before = try dns.questions().count
            let session = try Session(configuration: configuration(resolver).0)
            defer { session.invalidate() }
            let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html")!)
            XCTAssertEqual(response.statusCode, 200)
            let logged = try dns.questions(after: before, atLeast: 3)
            let asked = logged.filter { $0[DNSQuestionField.service.rawValue] == service }
            XCTAssertEqual(Set(asked.map { "\($0[DNSQuestionField.method.rawValue]) \($0[DNSQuestionField.name.rawValue]) \($0[DNSQuestionField.type.rawValue])" }),
                           ["\(method) relay.test A", "\(method) relay.test AAAA", "\(method) relay.test HTTPS"], "\(resolver)")
            if service == "dot" {
                XCTAssertEqual(logged.filter { $0[DNSQuestionField.service.rawValue] == "dot-connection" }.count, 1, "three questions on one DoT connection")
            }
        }
    }

    func testObliviousDoHTheRelaySeesWhoAndTheTargetWhat() async throws {
        let before = try dns.questions().count
        var resolver = ResolverConfiguration.oblivious(relay: EncryptedDNSServer.odohRelayURL, target: EncryptedDNSServer.odohTargetURL)
        resolver.serverAddresses = [EncryptedDNSServer.relayAddress]
        let session = try Session(configuration: configuration(resolver).0)
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertEqual(response.statusCode, 200)
        let logged = try dns.questions(after: before, atLeast: 8)
        let field = { (line: [String], name: DNSQuestionField) in line[name.rawValue] }
        // The target: the config and both questions, all from the relay's address.
        let atTarget = logged.filter { ["odoh", "odoh-config"].contains(field($0, .service)) }
        XCTAssertEqual(Set(atTarget.map { "\(field($0, .service)) \(field($0, .name)) \(field($0, .type))" }),
                       ["odoh-config - -", "odoh relay.test A", "odoh relay.test AAAA", "odoh relay.test HTTPS"])
        XCTAssertEqual(Set(atTarget.map { field($0, .client) }), [EncryptedDNSServer.relayAddress], "the target never saw the client")
        // The relay: four requests from the client, naming the target and never the question.
        let atRelay = logged.filter { field($0, .service) == "odoh-relay" }
        XCTAssertEqual(atRelay.count, 4, "the configs once, three questions")
        XCTAssertEqual(Set(atRelay.map { field($0, .client) }), ["127.0.0.1"])
        XCTAssertEqual(Set(atRelay.map { field($0, .name) }), ["odoh-target.test"])
        XCTAssertEqual(Set(atRelay.map { field($0, .httpVersion) }), ["HTTP/2.0"])
    }

    func testExcludedHostIsResolvedByTheEncryptedResolverAndReachedDirectly() async throws {
        let before = try dns.questions().count
        let marker = TestServers.marker("excluded")
        var (configuration, _) = configuration(doh)
        configuration.proxyConfigurations[0].excludedDomains = ["origin.test"]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue],
                       "127.0.0.1", "excluded: reached directly")
        XCTAssertEqual(Set(try dns.questions(after: before, atLeast: 2).map { $0[DNSQuestionField.name.rawValue] }), ["origin.test"])
    }

    /// `RelayHop.dnsOverHTTPSURL`: a relay's own DoH resolver, reached through the relay, resolves
    /// a host excluded from relaying; the resolver sees the relay's address, never the client's.
    func testARelaysDoHResolverIsReachedThroughTheRelay() async throws {
        let before = try dns.questions().count
        let marker = TestServers.marker("relay-doh")
        var hop = TestServers.relayHop()
        hop.dnsOverHTTPSURL = URL(string: "https://\(EncryptedDNSServer.address)/dns-query")!
        var configuration = TestServers.configuration(hops: [hop])
        configuration.proxyConfigurations[0].excludedDomains = ["origin.test"]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue],
                       "127.0.0.1", "excluded: reached directly")
        let asked = try dns.questions(after: before, atLeast: 2)
        XCTAssertEqual(Set(asked.map { "\($0[DNSQuestionField.name.rawValue]) \($0[DNSQuestionField.client.rawValue]) \($0[DNSQuestionField.httpVersion.rawValue])" }),
                       ["origin.test 127.0.0.11 HTTP/2.0"], "asked through relay A, over HTTP/2")
    }

    /// A relay name the resolver says does not exist (NXDOMAIN) is remembered: the next fetch
    /// fails the same way without asking again (the resolver's log counts the questions).
    func testNonexistentNameIsAskedForOnce() async throws {
        let before = try dns.questions().count
        var (configuration, _) = configuration(doh)
        configuration.proxyConfigurations = [ProxyConfiguration(relayHops: [TestServers.relayHop(url: URL(string: "https://gone.test:3129")!)])]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        for attempt in 1...3 {
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
                XCTFail("resolved a name that does not exist")
            } catch let error as FetchError {
                XCTAssertTrue(error.description.contains("cannot resolve gone.test: no such name"),
                              "attempt \(attempt): \(error.description)")
            }
        }
        let asked = try dns.questions(after: before, atLeast: 1).filter { $0[DNSQuestionField.name.rawValue] == "gone.test" }
        XCTAssertFalse(asked.isEmpty, "the resolver's log shows no question for gone.test")
        XCTAssertLessThanOrEqual(asked.count, 3, "asked again after NXDOMAIN: \(asked)")
        let afterFirst = asked.count
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(try dns.questions().dropFirst(before).filter { $0[DNSQuestionField.name.rawValue] == "gone.test" }.count, afterFirst)
    }

    func testRequiredResolutionFailsClosed() async throws {
        // A name the resolver does not know, and a resolver that is down: errors, no fallback.
        var (unknown, _) = configuration(doh)
        unknown.proxyConfigurations = [ProxyConfiguration(relayHops: [TestServers.relayHop(url: URL(string: "https://unknown.test:3129")!)])]
        var (down, _) = configuration(.https(EncryptedDNSServer.dohURL, serverAddresses: ["127.0.0.59"]))
        down.connectTimeout = 3
        var (dotDown, _) = configuration(.tls("dns.test", serverAddresses: ["127.0.0.59"]))
        dotDown.connectTimeout = 3
        // A DoT server that accepts and never answers: the query times out.
        let silent = try SilentSocket(.tcp, host: "127.0.0.52")
        defer { silent.close() }
        var (dotSilent, _) = configuration(.tls("dns.test:\(silent.port)", serverAddresses: ["127.0.0.52"]))
        dotSilent.connectTimeout = 1
        for configuration in [unknown, down, dotDown, dotSilent] {
            let session = try Session(configuration: configuration)
            defer { session.invalidate() }
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
                XCTFail("resolved without the encrypted resolver")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.hop.index, 1, error.description)
                XCTAssertTrue(error.description.contains("cannot resolve relay host"), error.description)
            }
        }
        // Required but no resolver configured, and a DoH server only plain DNS could find.
        let context = PrivacyContext()
        context.requireEncryptedNameResolution(true, fallbackResolver: .https(EncryptedDNSServer.dohURL))
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.privacyContext = context
        XCTAssertThrowsError(try Session(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("(serverAddresses)") && !"\(error)".contains("--"), "a library error names no option: \(error)")
        }
    }
}
