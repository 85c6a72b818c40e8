import Foundation
import RelayFetchTestSupport

/// The Privacy Pass servers of the multiplexed-relay tests, on 127.0.23.x: the issuer
/// (privacy_pass_issuer.py on 127.0.23.2, `issuerArguments` added) and the challenging front
/// (privacy_pass_relay.py on 127.0.23.1, forwarding to relay B, admitting the issuer without a
/// token), reached over HTTP/2 through nghttpx (127.0.23.3) or over HTTP/3 through the aioquic
/// relay (127.0.23.4), each passing CONNECTs and their answers on to the front; or the front
/// itself over HTTP/1.1.
final class PrivacyPassFronts {
    enum Kind { case http1, http2, http3 }

    let issuer: HostileServer
    let front: HostileServer
    private(set) var http2: NGHTTPXFront?
    private(set) var http3: HTTP3RelayInstance?

    /// `openTargets`: authorities besides the issuer the front admits without a token (the IdP).
    init(_ kind: Kind, issuerArguments: [String] = [], openTargets: [String] = []) throws {
        issuer = try HostileServer(script: "privacy_pass_issuer.py", host: "127.0.23.2", arguments: issuerArguments)
        front = try HostileServer(script: "privacy_pass_relay.py", host: "127.0.23.1", arguments: [
            "--issuer", "http://127.0.23.2:\(issuer.port)", "--upstream", "127.0.0.12:3128", "--upstream-token", TestServers.relayBToken,
            "--open-target", "127.0.23.2:\(issuer.port)",
        ] + openTargets.flatMap { ["--open-target", $0] })
        switch kind {
        case .http1: break
        case .http2: http2 = try NGHTTPXFront(host: "127.0.23.3", backend: "127.0.23.1:\(front.port)")
        case .http3: http3 = try HTTP3RelayInstance(host: "127.0.23.4", upstream: "127.0.23.1:\(front.port)")
        }
    }

    var issuerURL: String { "http://127.0.23.2:\(issuer.port)" }

    /// `--relay` and `--relay-protocol` for the multiplexed relay, then the issuer option.
    func relayArguments(issuer: String? = nil) -> [String] {
        let trust = ["--relay-cacert", TestServers.caFile]
        let relay = http2.map { ["--relay", $0.url.absoluteString, "--relay-protocol", "h2"] + trust }
            ?? http3.map { ["--relay", "https://127.0.23.4:\($0.port)", "--relay-protocol", "h3"] + trust }
            ?? ["--relay", "http://127.0.23.1:\(front.port)"]
        return relay + ["--relay-privacy-pass", issuer ?? issuerURL, "--cacert", TestServers.caFile]
    }

    /// The multiplexed relay's log lines for CONNECTs to `authority` (both logs have it at 4;
    /// nghttpx: status at 5, Proxy-Authorization at 6; the HTTP/3 relay: status at 6,
    /// proxy-authorization at 7), as (status, authorization). Throws when the log is missing.
    func relayAnswers(to authority: String) throws -> [(status: String, authorization: String)] {
        if let http2 { return try http2.lines().filter { $0.count > 6 && $0[4] == authority }.map { ($0[5], $0[6]) } }
        guard let http3 else { throw TestServerError(description: "no multiplexed relay in this test") }
        return try http3.lines().filter { $0.count > 7 && $0[4] == authority }.map { ($0[6], $0[7]) }
    }

    /// hop 1 as errors name it.
    var hopDescription: String {
        if let http2 { return "hop 1 (\(http2.host):\(http2.port), HTTPS, HTTP/2 CONNECT)" }
        if let http3 { return "hop 1 (\(http3.host):\(http3.port), QUIC, HTTP/3 CONNECT)" }
        return "hop 1 (127.0.23.1:\(front.port), HTTP, HTTP/1.1 CONNECT)"
    }

    func stop() {
        http2?.stop()
        http3?.stop()
        front.stop()
        issuer.stop()
    }
}
