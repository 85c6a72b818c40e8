import HTTPCore
import Foundation
import ObliviousHTTP

/// The gateway key a route encrypts to (a box so `Route` stays small).
final class OHTTPKeyConfigRef: Sendable {
    let config: OHTTPKeyConfig
    init(_ config: OHTTPKeyConfig) { self.config = config }

    /// The first configuration in `data` (a single one or an `application/ohttp-keys` list)
    /// whose KEM, KDF and AEAD we support.
    static func parse(_ data: Data) throws(FetchError) -> OHTTPKeyConfigRef {
        var configs: [OHTTPKeyConfig] = []
        if let list = try? OHTTPKeyConfig.parseList(data) { configs = list }
        if configs.isEmpty, let single = try? OHTTPKeyConfig(parsing: data) { configs = [single] }
        guard let usable = configs.first(where: { (try? OHTTPClient(keyConfig: $0)) != nil }) else {
            throw FetchError(.oblivious("no usable key configuration in the gateway's keys (need X25519 with HKDF-SHA256/384/512 and AES-GCM or ChaCha20-Poly1305)"))
        }
        return OHTTPKeyConfigRef(usable)
    }
}

/// Turns one HTTP exchange into an Oblivious HTTP one (RFC 9458): encode the request as Binary
/// HTTP, encapsulate it to the gateway's key, POST it to the relay, and decapsulate the answer.
/// A response that fails authentication is an error, and no part of it is returned.
enum ObliviousExchange {
    static func encapsulate(_ request: HTTPRequest, route: ObliviousRoute) throws(FetchError) -> (HTTPRequest, OHTTPResponseDecapsulator) {
        let url = request.url
        let path = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery.map { "?\($0)" } ?? ""
        let authority = (url.host ?? "") + (url.port.map { ":\($0)" } ?? "")
        let fields = request.headerFields.map { BinaryHTTPField(name: $0.name.lowercased(), value: $0.value) }
        let message = BinaryHTTPRequest(method: request.method.uppercased(), scheme: url.scheme?.lowercased() ?? "https", authority: authority,
                                        path: path + query, headerFields: fields, content: request.body ?? Data())
        do {
            let client = try OHTTPClient(keyConfig: route.keyConfig.config)
            let (encapsulated, context) = try client.encapsulate(message.encoded())
            var post = HTTPRequest(url: route.relayURL, method: "POST",
                                   headerFields: [("Content-Type", "message/ohttp-req"), ("Accept", "message/ohttp-res")] + route.relayHeaderFields,
                                   body: encapsulated)
            post.siteForCookies = nil
            return (post, context)
        } catch {
            throw FetchError(.oblivious("cannot encapsulate the request: \(error)"))
        }
    }

    static func decapsulate(_ body: consuming Data, relayResponse: HTTPResponse, context: OHTTPResponseDecapsulator,
                            for request: HTTPRequest, route: any Route) throws(FetchError) -> (Data, HTTPResponse) {
        guard relayResponse.statusCode == 200 else {
            let reason = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw FetchError(.oblivious("the relay answered \(relayResponse.statusCode)" + (reason.isEmpty ? "" : ": \(reason)")))
        }
        guard relayResponse.value(forHeaderField: "Content-Type")?.lowercased().hasPrefix("message/ohttp-res") == true else {
            throw FetchError(.oblivious("the relay's answer is not message/ohttp-res"))
        }
        let inner: BinaryHTTPResponse
        do {
            let plaintext = try context.decapsulate(body)
            _ = consume body  // the sealed copy goes before the content is taken out of the plaintext
            inner = try BinaryHTTPResponse(decoding: plaintext)
        } catch {
            throw FetchError(.oblivious("the gateway's response failed: \(error)"))
        }
        var response = HTTPResponse(statusCode: inner.status, httpVersion: "OHTTP",
                                    headerFields: HTTPFields(inner.headerFields.map { (name: $0.name, value: $0.stringValue ?? "") }),
                                    url: request.url, relayHops: route.hopNames)
        response.timings = relayResponse.timings
        return (inner.content, response)
    }
}
