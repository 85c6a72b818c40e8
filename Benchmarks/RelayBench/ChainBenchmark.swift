import Foundation
import RelayFetch

/// 200 small GETs across 20 origin host names, 20 in flight: relayfetch through a two-hop HTTP/2
/// chain (and through one HTTPS hop), against curl 7.88 through one HTTPS relay, the most curl
/// can do (it has no HTTP/2 proxy and no real proxy chains).
struct ChainBenchmark {
    let servers: URL
    let caFile: String
    let rounds: Int
    let requests = 200
    let hostCount = 20
    let inFlight = 20

    private var urls: [URL] {
        (0..<requests).map { URL(string: "https://h\($0 % hostCount + 1).origin.test/index.html?bench=\($0)")! }
    }

    private func hop(_ url: String, token: String, relayProtocol: RelayProtocol = .automatic) -> ProxyConfiguration.RelayHop {
        var hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: url)!, tlsOptions: .init(certificateAuthorityFile: caFile),
                                              additionalHTTPHeaderFields: ["Proxy-Authorization": token])
        hop.relayProtocol = relayProtocol
        return hop
    }

    struct Sample {
        let seconds: Double
        let connections: String
    }

    func run() async {
        print("workload: \(requests) GETs of a 410-byte page across \(hostCount) origin host names, \(inFlight) in flight; median of \(rounds) rounds")
        // Protocols named: `auto` would speak HTTP/3 to A's port 4433 (its Python relay) and try
        // QUIC on squid's port first; these rows measure the TCP relays.
        let chain = [hop("https://127.0.0.11:4433", token: "Bearer relay-token-A", relayProtocol: .http2),
                     hop("https://127.0.0.12:4433", token: "Bearer relay-token-B", relayProtocol: .http2)]
        let oneHop = [hop("https://127.0.0.11:3129", token: "Bearer relay-token-A", relayProtocol: .http1)]
        let http2Hop = [hop("https://127.0.0.11:4433", token: "Bearer relay-token-A", relayProtocol: .http2)]
        let http3Hop = [hop("https://127.0.0.11:4433", token: "Bearer relay-token-A", relayProtocol: .http3)]
        let http3Chain = [hop("https://127.0.0.11:4433", token: "Bearer relay-token-A", relayProtocol: .http3),
                          hop("https://127.0.0.12:4433", token: "Bearer relay-token-B", relayProtocol: .http3)]
        let rows: [(String, [Sample])] = [
            ("relayfetch, 2 hops, HTTP/2 (A -> B)", await repeatRounds { await relayfetch(hops: chain) }),
            ("relayfetch, 1 hop, HTTPS + HTTP/1.1 (A)", await repeatRounds { await relayfetch(hops: oneHop) }),
            ("curl 7.88, 1 hop, HTTPS + HTTP/1.1 (A)", await repeatRounds { curl() }),
            ("relayfetch, 1 hop, HTTP/2 (A, nghttpx)", await repeatRounds { await relayfetch(hops: http2Hop) }),
            ("relayfetch, 1 hop, HTTP/3 (A, aioquic)", await repeatRounds { await relayfetch(hops: http3Hop) }),
            ("relayfetch, 2 hops, HTTP/3 (A -> B, CONNECT-UDP)", await repeatRounds { await relayfetch(hops: http3Chain) }),
        ]
        print("")
        print("tool".padding(toLength: 50, withPad: " ", startingAt: 0) + "median s   req/s   relay connections opened")
        var rates: [Double] = []
        for (name, samples) in rows {
            let median = samples.map(\.seconds).sorted()[samples.count / 2]
            rates.append(Double(requests) / median)
            print(name.padding(toLength: 50, withPad: " ", startingAt: 0)
                  + String(format: "%8.3f  %6.0f   ", median, Double(requests) / median) + (samples.last?.connections ?? "?"))
        }
        print("")
        print(String(format: "ratio: relayfetch 2-hop HTTP/2 chain / curl 1-hop throughput = %.2fx (target >= 1.0)", rates[0] / rates[2]))
        print(String(format: "ratio: relayfetch 1-hop / curl 1-hop throughput (same relay)   = %.2fx", rates[1] / rates[2]))
        print(String(format: "ratio: relayfetch 1-hop HTTP/3 / 1-hop HTTP/2 throughput     = %.2fx (the HTTP/3 relay is Python: aioquic)",
                     rates[4] / rates[3]))
        print(String(format: "ratio: relayfetch 2-hop HTTP/3 chain / 2-hop HTTP/2 chain         = %.2fx (both relays of the HTTP/3 chain are Python)",
                     rates[5] / rates[0]))
    }

    private func repeatRounds(_ body: () async -> Sample?) async -> [Sample] {
        var samples: [Sample] = []
        for _ in 0..<rounds { if let sample = await body() { samples.append(sample) } }
        return samples.isEmpty ? [Sample(seconds: .infinity, connections: "failed")] : samples
    }

    private func relayfetch(hops: [ProxyConfiguration.RelayHop]) async -> Sample? {
        var configuration = Session.Configuration(proxyConfigurations: [ProxyConfiguration(relayHops: hops)])
        configuration.originCertificateAuthorityFile = caFile
        guard let session = try? Session(configuration: configuration) else { return nil }
        defer { session.invalidate() }
        let started = Date()
        let list = urls
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    let url = list[next]
                    next += 1
                    group.addTask { _ = try await session.data(from: url) }
                }
                while next < min(inFlight, list.count) { add() }
                while try await group.next() != nil { if next < list.count { add() } }
            }
        } catch {
            FileHandle.standardError.write(Data("relayfetch failed: \(error)\n".utf8))
            return nil
        }
        let seconds = Date().timeIntervalSince(started)
        let opened = await session.relayConnectionsOpened()
        return Sample(seconds: seconds, connections: opened.keys.sorted().map { "hop \($0): \(opened[$0]!)" }.joined(separator: ", "))
    }

    private func curl() -> Sample? {
        let relayLog = servers.appendingPathComponent("squid/access.log")
        let before = connectLines(relayLog)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--no-progress-meter", "--fail", "--parallel", "--parallel-max", String(inFlight),
                             "--proxy", "https://127.0.0.11:3129", "--proxy-header", "Proxy-Authorization: Bearer relay-token-A",
                             "--proxy-cacert", caFile, "--cacert", caFile] + urls.flatMap { [$0.absoluteString, "-o", "/dev/null"] }
        process.standardError = FileHandle.nullDevice
        let started = Date()
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        guard process.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("curl failed with \(process.terminationStatus)\n".utf8))
            return nil
        }
        Thread.sleep(forTimeInterval: 0.3)  // squid logs each tunnel when it closes
        return Sample(seconds: seconds, connections: "hop 1: \(connectLines(relayLog) - before) (squid's log)")
    }

    private func connectLines(_ log: URL) -> Int {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("\tCONNECT\t") }.count
    }
}
