import Foundation
import RelayFetch
import RelayTransport

/// The one line `relayfetch proxy` logs per client connection when it ends: client, identity,
/// dialect, chain, bytes each way, duration and outcome. The target appears only when asked
/// (`--log-targets`), so a log kept by default says who used the proxy, not what they visited;
/// for the same reason a failure is logged as its kind, not the relay's words (which may name it).
struct ProxyLogLine {
    let client: String
    let request: ProxyRequest
    let showsTarget: Bool
    let started: UInt64
    var chain: [String] = []

    init(client: String, request: ProxyRequest, showsTarget: Bool, started: UInt64) {
        self.client = client
        self.request = request
        self.showsTarget = showsTarget
        self.started = started
    }

    func text(_ report: ProxiedStreamReport) -> String {
        guard let failure = report.failure else {
            return prefix + " up \(report.bytesFromClient) down \(report.bytesToClient) \(seconds) ok"
        }
        let refusal = ProxyRefusal(failure, chainLength: chain.count)
        return prefix + " up 0 down 0 \(seconds) refused \(refusal) (hop \(failure.hop.index))"
    }

    func text(refused refusal: ProxyRefusal, why: String) -> String {
        prefix + " up 0 down 0 \(seconds) refused \(refusal) (\(why))"
    }

    private var prefix: String {
        let dialect: String
        switch request.dialect {
        case .socks5: dialect = "socks5"
        case .socks5Associate: dialect = "socks5-udp"
        case .httpConnect: dialect = "http-connect"
        case .httpForward: dialect = "http"
        }
        let target = showsTarget ? TunnelTarget(host: request.host, port: request.port).description : "-"
        return "proxy: client \(client) user \(request.identity ?? "-") \(dialect) chain \(chain.isEmpty ? "-" : chain.joined(separator: ">")) target \(target)"
    }

    private var seconds: String {
        let elapsed = Double(EventLoop.nowNanos() - started) / 1e9
        return String(format: "%.3fs", elapsed)
    }
}
