import Foundation
import ObliviousHTTP
import RelayFetch

/// Oblivious HTTP costs: encapsulate + decapsulate round trips per second on one core (client
/// and gateway sides, in process), and the latency of an OHTTP GET against plain GETs through
/// the same nginx relay, measured in the same run.
struct ObliviousBenchmark {
    let servers: URL
    let caFile: String
    let requests = 50

    func run() async {
        print("Oblivious HTTP (RFC 9458), X25519 + HKDF-SHA256 + AES-128-GCM")
        cryptoRoundTrips()
        await latency()
    }

    /// One round trip: client encapsulates a GET, gateway decapsulates it and encapsulates a
    /// 410-byte response, client decapsulates that. Single-threaded for about a second.
    private func cryptoRoundTrips() {
        do {
            let key = try OHTTPGatewayKey.generate(keyID: 1)
            let gateway = OHTTPGateway(keys: [key])
            let config = try OHTTPKeyConfig.parseList(gateway.keyConfigurations)[0]
            let client = try OHTTPClient(keyConfig: config)
            let request = try BinaryHTTPRequest(method: "GET", scheme: "https", authority: "origin.test", path: "/index.html").encoded()
            let response = try BinaryHTTPResponse(status: 200, content: Data(repeating: 0x61, count: 410)).encoded()
            let started = Date()
            var count = 0
            while Date().timeIntervalSince(started) < 1 {
                let (sealed, context) = try client.encapsulate(request)
                let (_, reply) = try gateway.decapsulate(sealed)
                _ = try context.decapsulate(try reply.encapsulate(response))
                count += 1
            }
            let seconds = Date().timeIntervalSince(started)
            print(String(format: "crypto: %.0f encapsulate+decapsulate round trips per second on one core (%.1f µs each)",
                         Double(count) / seconds, seconds / Double(count) * 1e6))
        } catch {
            print("crypto: failed: \(error)")
        }
    }

    private func latency() async {
        guard let keys = try? Data(contentsOf: servers.appendingPathComponent("ohttp/keys.bin")) else {
            print("latency: no gateway keys (are the test servers running?)")
            return
        }
        let relay = URL(string: "https://127.0.0.30")!
        var oblivious = Session.Configuration(proxyConfigurations: [
            ProxyConfiguration(obliviousHTTPRelay: .init(http2RelayEndpoint: relay), relayResourcePath: "/relay",
                               gatewayKeyConfig: keys, matchDomains: ["origin.test"]),
        ])
        oblivious.originCertificateAuthorityFile = caFile
        var plain = Session.Configuration()
        plain.originCertificateAuthorityFile = caFile
        plain.directHostAddresses = ["origin.test:443": "127.0.0.21"]
        let rows: [(String, Session.Configuration, URL)] = [
            ("OHTTP GET origin.test/index.html (relay -> gateway -> origin)", oblivious, URL(string: "https://origin.test/index.html")!),
            ("plain GET 127.0.0.30/ohttp-keys (the same nginx relay)", plain, relay.appendingPathComponent("ohttp-keys")),
            ("plain GET origin.test/index.html (direct, for reference)", plain, URL(string: "https://origin.test/index.html")!),
        ]
        print("latency: median of \(requests) sequential requests in one session (connections reused)")
        var medians: [Double] = []
        for (name, configuration, url) in rows {
            guard let session = try? Session(configuration: configuration) else { continue }
            var times: [Double] = []
            for index in 0...requests {
                let started = Date()
                var request = HTTPRequest(url: url)
                request.headerFields = [("Cache-Control", "no-cache"), ("X-Bench", String(index))]
                guard (try? await session.data(for: request)) != nil else { break }
                if index > 0 { times.append(Date().timeIntervalSince(started)) }  // the first opens connections
            }
            session.invalidate()
            let median = times.sorted().dropFirst(times.count / 2).first ?? .nan
            medians.append(median)
            print("  " + name.padding(toLength: 64, withPad: " ", startingAt: 0) + String(format: "%7.2f ms", median * 1000))
        }
        if medians.count == 3 {
            print(String(format: "ratio: OHTTP GET / plain GET through the same relay = %.2fx", medians[0] / medians[1]))
        }
    }
}
