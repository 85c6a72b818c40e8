import HTTPCore
import Foundation
import NameResolution

/// DNS over HTTPS (RFC 8484): each query is one request with `application/dns-message`, a GET
/// with the query base64url-encoded in `dns` or a POST with it as the body, over the session's
/// libcurl engine (HTTP/2 by ALPN). The resolver is reached directly at its pinned addresses, or
/// through a relay chain (a relay's own DoH resolver), never by resolving its name in plain text.
struct DNSOverHTTPSTransport: DNSTransport {
    let url: URL
    let usesPOST: Bool
    let route: any CurlRoute
    /// IP literals for the resolver's host on a direct route (libcurl is told them, so it asks no one).
    let addresses: [String]
    let engine: CurlEngine
    let configuration: Session.Configuration

    var resolverDescription: String { "DNS-over-HTTPS resolver \(url.absoluteString)" }

    func exchange(_ query: [UInt8]) async throws -> [UInt8] {
        var request: HTTPRequest
        let accept: HTTPFields.Field = ("Accept", "application/dns-message")
        if usesPOST {
            request = HTTPRequest(url: url, method: "POST", headerFields: [accept, ("Content-Type", "application/dns-message")], body: Data(query))
        } else {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw FetchError(.nameResolution("bad DoH URL \(url.absoluteString)"))
            }
            components.percentEncodedQueryItems = (components.percentEncodedQueryItems ?? []) + [URLQueryItem(name: "dns", value: Self.base64URL(query))]
            request = HTTPRequest(url: components.url ?? url, headerFields: [accept])
        }
        request.httpShouldHandleCookies = false
        request.siteForCookies = nil
        request.timeout = configuration.nameResolutionTimeout
        request.maximumBodySize = Self.maximumMessageSize
        let transfer = try CurlTransfer(request: request, route: route, configuration: configuration, pinnedAddresses: addresses)
        let (body, response) = try await engine.perform(transfer)
        guard response.statusCode == 200 else {
            throw FetchError(.nameResolution("\(resolverDescription) answered HTTP \(response.statusCode)"))
        }
        guard response.value(forHeaderField: "Content-Type")?.lowercased().hasPrefix("application/dns-message") == true else {
            throw FetchError(.nameResolution("\(resolverDescription) did not answer with application/dns-message"))
        }
        return [UInt8](body)
    }

    /// A DNS message is at most 65,535 bytes (its length travels in 16 bits over TCP); a resolver
    /// that sends more is cut off there, not at the session's response limit.
    static let maximumMessageSize = 65_535

    /// base64url without padding (RFC 8484 §6).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
