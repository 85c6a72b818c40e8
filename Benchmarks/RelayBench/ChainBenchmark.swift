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
        /// CPU time the round cost on the machine: the client's, the relays' and the origin's.
        var cpuSeconds: Double = 0
    }

    /// A row's rounds: the samples of those that worked and how many failed.
    struct Row {
        let name: String
        let samples: [Sample]
        let failedRounds: Int

        var median: Double { samples.isEmpty ? .infinity : samples.map(\.seconds).sorted()[samples.count / 2] }
        var medianCPU: Double { samples.isEmpty ? 0 : samples.map(\.cpuSeconds).sorted()[samples.count / 2] }
        /// Why the row's figure is not a measurement of the work: failed rounds, or a time far
        /// above what the machine's CPU explains (on loopback the work is CPU-bound; four times
        /// the CPU time means the round waited on a timer or a stall).
        var problems: [String] {
            var found: [String] = []
            if failedRounds > 0 { found.append("\(failedRounds) of \(failedRounds + samples.count) rounds failed") }
            if !samples.isEmpty, median > 4 * max(medianCPU, 0.005) {
                found.append(String(format: "IDLE: %.3f s where the CPU explains %.3f s", median, medianCPU))
            }
            return found
        }
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
        let rows: [Row] = [
            await row("relayfetch, 2 hops, HTTP/2 (A -> B)") { await relayfetch(hops: chain) },
            await row("relayfetch, 1 hop, HTTPS + HTTP/1.1 (A)") { await relayfetch(hops: oneHop) },
            await row("curl 7.88, 1 hop, HTTPS + HTTP/1.1 (A)") { curl() },
            await row("relayfetch, 1 hop, HTTP/2 (A, nghttpx)") { await relayfetch(hops: http2Hop) },
            await row("relayfetch, 1 hop, HTTP/3 (A, aioquic)") { await relayfetch(hops: http3Hop) },
            await row("relayfetch, 2 hops, HTTP/3 (A -> B, CONNECT-UDP)") { await relayfetch(hops: http3Chain) },
        ]
        print("")
        print("tool".padding(toLength: 50, withPad: " ", startingAt: 0) + "median s   req/s   CPU s (machine)   relay connections opened")
        for row in rows {
            print(row.name.padding(toLength: 50, withPad: " ", startingAt: 0)
                  + String(format: "%8.3f  %6.0f  %8.3f          ", row.median, Double(requests) / row.median, row.medianCPU)
                  + (row.samples.last?.connections ?? "failed"))
        }
        print("")
        ratio("relayfetch 2-hop HTTP/2 chain / curl 1-hop throughput = %.2fx (target >= 1.0)", rows[0], rows[2])
        ratio("relayfetch 1-hop / curl 1-hop throughput (same relay)   = %.2fx", rows[1], rows[2])
        ratio("relayfetch 1-hop HTTP/2 / curl 1-hop throughput        = %.2fx", rows[3], rows[2])
        ratio("relayfetch 1-hop HTTP/3 / 1-hop HTTP/2 throughput     = %.2fx (the HTTP/3 relay is Python: aioquic)", rows[4], rows[3])
        ratio("relayfetch 2-hop HTTP/3 chain / 2-hop HTTP/2 chain         = %.2fx (both relays of the HTTP/3 chain are Python)", rows[5], rows[0])
        let flagged = rows.filter { !$0.problems.isEmpty }
        for row in flagged { print("FLAGGED \(row.name): \(row.problems.joined(separator: "; "))") }
        if !flagged.isEmpty { exit(1) }
    }

    /// Prints the throughput ratio of `a` over `b`, marked invalid when either row is flagged.
    private func ratio(_ format: String, _ a: Row, _ b: Row) {
        let valid = a.problems.isEmpty && b.problems.isEmpty
        print("ratio: " + String(format: format, b.median / a.median) + (valid ? "" : "  INVALID: a row failed or idled (below)"))
    }

    private func row(_ name: String, _ body: () async -> Sample?) async -> Row {
        var samples: [Sample] = []
        var failed = 0
        for _ in 0..<rounds {
            if let sample = await body() { samples.append(sample) } else { failed += 1 }
        }
        return Row(name: name, samples: samples, failedRounds: failed)
    }

    private func relayfetch(hops: [ProxyConfiguration.RelayHop]) async -> Sample? {
        var configuration = Session.Configuration(proxyConfigurations: [ProxyConfiguration(relayHops: hops)])
        configuration.originCertificateAuthorityFile = caFile
        guard let session = try? Session(configuration: configuration) else { return nil }
        defer { session.invalidate() }
        let started = Date()
        let cpuBefore = Self.machineCPUSeconds()
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
        let cpu = Self.machineCPUSeconds() - cpuBefore
        let opened = await session.relayConnectionsOpened()
        return Sample(seconds: seconds, connections: opened.keys.sorted().map { "hop \($0): \(opened[$0]!)" }.joined(separator: ", "),
                      cpuSeconds: cpu)
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
        let cpuBefore = Self.machineCPUSeconds()
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        let cpu = Self.machineCPUSeconds() - cpuBefore
        guard process.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("curl failed with \(process.terminationStatus)\n".utf8))
            return nil
        }
        Thread.sleep(forTimeInterval: 0.3)  // squid logs each tunnel when it closes
        return Sample(seconds: seconds, connections: "hop 1: \(connectLines(relayLog) - before) (squid's log)", cpuSeconds: cpu)
    }

    /// CPU seconds every process on the machine spent busy so far (/proc/stat: user, nice,
    /// system, irq, softirq, steal; all cores): the client, the relays and the origin alike, so
    /// a round's share is the work it cost wherever it ran, and a round far longer than that
    /// waited on something.
    private static func machineCPUSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return 0 }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func connectLines(_ log: URL) -> Int {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("\tCONNECT\t") }.count
    }
}
