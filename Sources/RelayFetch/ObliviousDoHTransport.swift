import HTTPCore
import Foundation
import Locking
import NameResolution
import ObliviousHTTP

/// Oblivious DoH (RFC 9230): each query is sealed to the target's HPKE key and POSTed
/// (`application/oblivious-dns-message`) to the oblivious relay with `targethost` and
/// `targetpath`; the relay sees who asks but not what, the target what but not who. The target's
/// configuration is given, or fetched once through the same relay (never from the target
/// directly). The relay is reached at its pinned addresses over the session's libcurl engine.
final class ObliviousDoHTransport: DNSTransport, Sendable {
    private let relay: URL
    private let target: URL
    private let addresses: [String]
    private let engine: CurlEngine
    private let configuration: Session.Configuration
    /// The target's configuration: given, or one fetch that concurrent queries share.
    private let config = Locked<Task<ObliviousDoH.Config, Error>?>(nil)

    init(relay: URL, target: URL, keys: Data?, addresses: [String], engine: CurlEngine, configuration: Session.Configuration) throws(FetchError) {
        self.relay = relay
        self.target = target
        self.addresses = addresses
        self.engine = engine
        self.configuration = configuration
        if let keys {
            do {
                let given = try ObliviousDoH.Config.firstSupported(in: keys)
                config.withLock { $0 = Task { given } }
            } catch {
                throw FetchError(.nameResolution("the ODoH target's configs: \(error)"))
            }
        }
    }

    var resolverDescription: String { "Oblivious DoH resolver \(target.absoluteString) via \(relay.absoluteString)" }

    func exchange(_ query: [UInt8]) async throws -> [UInt8] {
        let config = try await targetConfig()
        // Padded so the sealed query's length says little about the name (RFC 9230 §7).
        let (message, opener) = try ObliviousDoH.sealQuery(query, to: config, padding: (128 - query.count % 128) % 128)
        let (body, response) = try await send(path: target.path.isEmpty ? "/" : target.path, method: "POST", body: message)
        guard response.statusCode == 200, response.value(forHeaderField: "Content-Type")?.lowercased().hasPrefix(ObliviousDoH.mediaType) == true else {
            throw FetchError(.nameResolution("\(resolverDescription) answered HTTP \(response.statusCode) without \(ObliviousDoH.mediaType)"))
        }
        return try opener.open(body)
    }

    private func targetConfig() async throws -> ObliviousDoH.Config {
        let task = config.withLock { config -> Task<ObliviousDoH.Config, Error> in
            if let config { return config }
            let fetch = Task { try await self.fetchConfig() }
            config = fetch
            return fetch
        }
        do {
            return try await task.value
        } catch {
            config.withLock { if $0 == task { $0 = nil } }  // a failed fetch is tried again next time
            throw error
        }
    }

    private func fetchConfig() async throws -> ObliviousDoH.Config {
        let (body, response) = try await send(path: "/.well-known/odohconfigs", method: "GET", body: nil)
        guard response.statusCode == 200 else {
            throw FetchError(.nameResolution("fetching the ODoH target's configs through the relay gave HTTP \(response.statusCode)"))
        }
        return try ObliviousDoH.Config.firstSupported(in: body)
    }

    /// One request to the target at `path`, through the oblivious relay.
    private func send(path: String, method: String, body: Data?) async throws -> (Data, HTTPResponse) {
        guard var components = URLComponents(url: relay, resolvingAgainstBaseURL: false), let targetHost = target.host else {
            throw FetchError(.nameResolution("bad ODoH relay or target URL"))
        }
        let host = target.port.map { "\(targetHost):\($0)" } ?? targetHost
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "targethost", value: host), URLQueryItem(name: "targetpath", value: path)]
        guard let url = components.url else { throw FetchError(.nameResolution("bad ODoH relay URL \(relay.absoluteString)")) }
        var fields: HTTPFields = [("Accept", method == "POST" ? ObliviousDoH.mediaType : "application/oblivious-dns-configs")]
        if body != nil { fields.append(("Content-Type", ObliviousDoH.mediaType)) }
        var request = HTTPRequest(url: url, method: method, headerFields: fields, body: body)
        request.httpShouldHandleCookies = false
        request.siteForCookies = nil
        request.timeout = configuration.nameResolutionTimeout
        // A sealed DNS message (or a config list) with its padding and AEAD overhead: far below this.
        request.maximumBodySize = 2 * DNSOverHTTPSTransport.maximumMessageSize
        return try await engine.perform(try CurlTransfer(request: request, route: DirectRoute(), configuration: configuration, pinnedAddresses: addresses))
    }
}
