import Foundation
import XCTest
import HeadlessPage
import RelayFetch
@testable import WebArchive
import RelayFetchTestSupport

/// The Codable HAR model writes what the dictionary writer it replaced wrote: the same page,
/// loaded once from the test origin through a relay, gives equal JSON trees (field order aside)
/// from `HARWriter` and from that writer's code kept here as the reference.
final class HARModelEquivalenceTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testCodableHARMatchesTheDictionaryWriterForTheSamePage() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.keepBodies = true
        let page = try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test/full/index.html?token=abc123&x=1")!)
        XCTAssertGreaterThan(page.resources.count, 1, "the sample page has subresources")
        for sensitive in [false, true] {
            let new = try JSONSerialization.jsonObject(with: HARWriter.data(for: page, includingSensitiveData: sensitive, creatorVersion: "t"))
            let old = try JSONSerialization.jsonObject(with: DictionaryHARWriter.data(for: page, includingSensitiveData: sensitive))
            XCTAssertTrue(Self.same(new, old), "HAR differs (sensitive: \(sensitive))")
        }
    }

    /// JSON trees equal as values: numbers compared as doubles, objects regardless of key order.
    static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (a as [String: Any], b as [String: Any]):
            return Set(a.keys) == Set(b.keys) && a.allSatisfy { same($0.value, b[$0.key]!) }
        case let (a as [Any], b as [Any]):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case let (a as String, b as String):
            return a == b
        case let (a as NSNumber, b as NSNumber):
            return a.doubleValue == b.doubleValue
        case (is NSNull, is NSNull):
            return true
        default:
            return false
        }
    }
}

/// `HARWriter` as it was before the Codable model (dictionaries and JSONSerialization).
private enum DictionaryHARWriter {
    static func data(for page: Page, includingSensitiveData: Bool) throws -> Data {
        let pageID = "page_1"
        var redactor = HARRedaction(enabled: !includingSensitiveData)
        let entries = ([page.main] + page.resources).map { entry($0, pageID: pageID, &redactor) }
        let log: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "relayfetch", "version": "t"],
                "pages": [[
                    "startedDateTime": HARWriter.iso8601(page.startedAt),
                    "id": pageID,
                    "title": page.document.title ?? redactor.url(page.url.absoluteString),
                    "pageTimings": ["onContentLoad": -1, "onLoad": HARWriter.milliseconds(page.loadTime)],
                ] as [String: Any]],
                "entries": entries,
            ] as [String: Any],
        ]
        return try JSONSerialization.data(withJSONObject: HARRedaction.clean(log, redactor.finishing()), options: [.prettyPrinted, .sortedKeys])
    }

    private static func pairs(_ list: [HARLog.NameValue]) -> [[String: String]] { list.map { ["name": $0.name, "value": $0.value] } }

    private static func entry(_ resource: PageResource, pageID: String, _ redactor: inout HARRedaction) -> [String: Any] {
        let exchange = resource.exchange
        let url = redactor.url(resource.url.absoluteString)
        var content: [String: Any] = ["size": resource.size, "mimeType": exchange.response.mimeType ?? "x-unknown"]
        let timing = HARTimings(exchange.timings, duration: exchange.duration, relayed: !exchange.relayChain.isEmpty)
        if let body = (try? exchange.wholeBody()) ?? nil { content["text"] = body.base64EncodedString(); content["encoding"] = "base64" }
        let t = timing.timings
        var entry: [String: Any] = [
            "pageref": pageID,
            "startedDateTime": HARWriter.iso8601(exchange.startedAt),
            "time": timing.time,
            "request": [
                "method": "GET", "url": url, "httpVersion": HARWriter.version(exchange.response.httpVersion ?? "HTTP/1.1"),
                "cookies": [], "headers": pairs(redactor.headers(exchange.request.headerFields)),
                "queryString": pairs(HARRedaction.queryString(of: url)),
                "headersSize": -1, "bodySize": 0,
            ] as [String: Any],
            "response": [
                "status": resource.statusCode ?? 0, "statusText": "", "httpVersion": HARWriter.version(exchange.response.httpVersion ?? ""),
                "cookies": [], "headers": pairs(redactor.headers(exchange.response.headerFields)), "content": content,
                "redirectURL": exchange.response.headerFields.first { $0.name.lowercased() == "location" }.map { redactor.url($0.value) } ?? "",
                "headersSize": -1, "bodySize": resource.size,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": ["blocked": t.blocked, "dns": t.dns, "connect": t.connect, "ssl": t.ssl, "send": t.send, "wait": t.wait, "receive": t.receive],
            "_relayChain": exchange.relayChain,
            "_relayChainTimings": exchange.relayHopTimings.map {
                ["hop": $0.hop, "protocol": $0.protocolName, "tunnelOpen": HARWriter.milliseconds($0.tunnelOpenAfter), "reusedConnection": $0.reusedConnection] as [String: Any]
            },
            "_resourceType": resource.kind.rawValue,
        ]
        if let error = resource.error { entry["_error"] = error }
        return entry
    }
}
