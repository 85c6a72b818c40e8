import Foundation
import XCTest
@testable import HeadlessPage
@testable import RelayFetch
@testable import WebArchive

/// `ExchangeHARWriter` on the Codable model writes what its dictionary version wrote, for a flow
/// with a form POST, a JSON token response and a redirect carrying a code (values the redaction
/// finds and then blanks everywhere), redacted and with sensitive data. The dictionary writer
/// reads each exchange as the session gave it; the Codable one reads the `HTTPExchange` that
/// `ExchangeRecorder` makes of it (`recorded`), so the record's conversion is proven too.
final class ExchangeHAREquivalenceTests: XCTestCase {
    private func flow() -> [SessionExchange] {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var timings = HTTPTimings()
        timings.connect = 0.01; timings.ssl = 0.005; timings.wait = 0.02; timings.receive = 0.001
        let hop = RelayHopTiming(index: 1, hop: "relay.test:443", protocolName: "HTTP/2", tunnelOpenAfter: 0.004, reusedConnection: false)
        let authorize = HTTPRequest(url: URL(string: "https://idp.test/authorize?client_id=c&state=s3cr3tstate&x=\"q\"")!,
                                    headerFields: [(name: "Cookie", value: "sid=abc")])
        let redirect = HTTPResponse(statusCode: 302, httpVersion: "HTTP/2",
                                    headerFields: [(name: "Location", value: "https://app.test/cb?code=thecode123456&state=s3cr3tstate"),
                                                   (name: "Set-Cookie", value: "sid=def")],
                                    url: authorize.url, relayHops: ["relay.test:443"], timings: timings, relayHopTimings: [hop])
        let token = HTTPRequest(url: URL(string: "https://idp.test/token")!, method: "POST",
                                headerFields: [(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                                body: Data("grant_type=authorization_code&code=thecode123456&client_secret=pa%22ss\\word".utf8))
        let tokenResponse = HTTPResponse(statusCode: 200, httpVersion: "HTTP/1.1",
                                         headerFields: [(name: "Content-Type", value: "application/json")],
                                         url: token.url, relayHops: [])
        let json = Data(#"{"access_token":"tok-9876543210","note":"has thecode123456 inside","nested":{"id_token":"x.y.z"}}"#.utf8)
        let page = HTTPRequest(url: URL(string: "https://app.test/home")!, method: "PUT",
                               headerFields: [(name: "Authorization", value: "Bearer tok-9876543210")], body: Data("raw".utf8))
        let pageResponse = HTTPResponse(statusCode: 200, httpVersion: "HTTP/3", headerFields: [(name: "Content-Type", value: "text/html")],
                                        url: page.url, relayHops: ["a:1", "b:2"])
        return [
            SessionExchange(request: authorize, response: redirect, body: Data(), startedAt: start, duration: 0.05),
            SessionExchange(request: token, response: tokenResponse, body: json, startedAt: start + 1, duration: 0.2),
            SessionExchange(request: page, response: pageResponse, body: Data("<p>tok-9876543210</p>".utf8), startedAt: start + 2, duration: 0.01),
        ]
    }

    /// The exchanges as `ExchangeRecorder` records them.
    private func recorded(_ exchanges: [SessionExchange]) -> [HTTPExchange] {
        exchanges.map { ExchangeRecorder.exchange($0.request, $0.response, body: $0.body, startedAt: $0.startedAt, duration: $0.duration) }
    }

    func testCodableHARMatchesTheDictionaryWriterForTheSameFlow() throws {
        // The comparison tells files apart: redacted and sensitive outputs differ.
        let redacted = try JSONSerialization.jsonObject(with: ExchangeHARWriter.data(for: recorded(flow()), title: "flow", redacting: [], creatorVersion: "t"))
        let sensitiveOld = try JSONSerialization.jsonObject(with: DictionaryExchangeHARWriter.data(for: flow(), title: "flow", redacting: [],
                                                                                                   includingSensitiveData: true))
        XCTAssertFalse(HARModelEquivalenceTests.same(redacted, sensitiveOld))
        for sensitive in [false, true] {
            let exchanges = flow()
            let data = try ExchangeHARWriter.data(for: recorded(exchanges), title: "flow", redacting: ["pa\"ss\\word"], includingSensitiveData: sensitive, creatorVersion: "t")
            let new = try JSONSerialization.jsonObject(with: data)
            let old = try JSONSerialization.jsonObject(with: DictionaryExchangeHARWriter.data(for: exchanges, title: "flow", redacting: ["pa\"ss\\word"],
                                                                                             includingSensitiveData: sensitive))
            XCTAssertTrue(HARModelEquivalenceTests.same(new, old), "HAR differs (sensitive: \(sensitive)):\n\(String(decoding: data, as: UTF8.self))")
            if !sensitive { XCTAssertFalse(String(decoding: data, as: UTF8.self).contains("thecode123456")) }
        }
    }
}
