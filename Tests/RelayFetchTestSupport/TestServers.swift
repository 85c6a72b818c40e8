import Foundation
import Locking
import RelayFetch

/// The real servers the end-to-end tests run against, started by scripts/test-servers.sh:
/// squid as relay A on 127.0.0.11, nginx origins on 127.0.0.21 (origin.test) and 127.0.0.22
/// (origin2.test). `origin.test` resolves at the relay only.
public enum TestServers {
    public static let repository: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let directory: URL = ProcessInfo.processInfo.environment["RELAYFETCH_SERVERS_DIR"]
        .map { URL(fileURLWithPath: $0) } ?? repository.appendingPathComponent(".build/test-servers")

    public static var caFile: String { directory.appendingPathComponent("pki/ca.pem").path }
    public static let relayURL = URL(string: "https://127.0.0.11:3129")!
    public static let relayToken = "Bearer relay-token-A"
    /// A loopback address and port where nothing listens: a relay that is down.
    public static let deadRelayURL = URL(string: "https://127.0.0.13:3129")!

    /// Relay B (squid on 127.0.0.12) and the HTTP/2 fronts (nghttpx) of both relays.
    public static let relayBURL = URL(string: "https://127.0.0.12:3129")!
    public static let relayBToken = "Bearer relay-token-B"
    public static let http2RelayAURL = URL(string: "https://127.0.0.11:4433")!
    public static let http2RelayBURL = URL(string: "https://127.0.0.12:4433")!
    public static var relayBLog: URL { directory.appendingPathComponent("squid-b/access.log") }
    public static var http2RelayALog: URL { directory.appendingPathComponent("nghttpx-a/access.log") }
    public static var http2RelayBLog: URL { directory.appendingPathComponent("nghttpx-b/access.log") }

    /// The Oblivious HTTP relay (nginx) and gateway (Python, pyhpke).
    public static let ohttpRelayURL = URL(string: "https://127.0.0.30")!
    public static var ohttpKeysFile: URL { directory.appendingPathComponent("ohttp/keys.bin") }
    public static var ohttpRelayLog: URL { directory.appendingPathComponent("nginx/ohttp-relay.log") }
    public static var ohttpGatewayLog: URL { directory.appendingPathComponent("ohttp/gateway.log") }

    public static var originALog: URL { directory.appendingPathComponent("nginx/origin-a.log") }
    public static var originBLog: URL { directory.appendingPathComponent("nginx/origin-b.log") }
    public static var relayLog: URL { directory.appendingPathComponent("squid/access.log") }

    /// True once the servers were started by this process (held while they start).
    private static let started = Locked(false)

    /// Starts the servers once per test process (the script is idempotent).
    public static func ensureRunning() throws {
        LeakCheckBeforeOpenSSLCleanup.install()
        try started.withLock { started in
            if started { return }
            let result = try run(["/bin/bash", repository.appendingPathComponent("scripts/test-servers.sh").path, "start"])
            guard result.status == 0 else {
                throw TestServerError(description: "scripts/test-servers.sh start failed (\(result.status)):\n\(result.output)")
            }
            started = true
        }
    }

    /// The relay hop as configured in tests: token header and test CA.
    public static func relayHop(token: String? = relayToken, url: URL = relayURL, trustTestCA: Bool = true,
                                relayProtocol: RelayProtocol = .automatic) -> ProxyConfiguration.RelayHop {
        var hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: url,
                                              tlsOptions: .init(certificateAuthorityFile: trustTestCA ? caFile : nil),
                                              additionalHTTPHeaderFields: token.map { ["Proxy-Authorization": $0] } ?? [:])
        hop.relayProtocol = relayProtocol
        return hop
    }

    /// A session configuration through `hops` that trusts the test CA for origins.
    public static func configuration(hops: [ProxyConfiguration.RelayHop], connectTimeout: Double = 5) -> Session.Configuration {
        var configuration = Session.Configuration(proxyConfigurations: hops.isEmpty ? [] : [ProxyConfiguration(relayHops: hops)])
        configuration.originCertificateAuthorityFile = caFile
        configuration.connectTimeout = connectTimeout
        return configuration
    }

    /// The relay certificate's SubjectPublicKeyInfo (DER), as the openssl CLI extracts it.
    public static func relayPublicKeyDER() throws -> Data {
        try opensslBase64(" | openssl pkey -pubin -outform DER | base64 -w0", what: "the relay's public key")
    }

    /// SHA-256 of the relay certificate's SubjectPublicKeyInfo, computed with the openssl CLI.
    public static func relayPublicKeySHA256() throws -> Data {
        try opensslBase64(" | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64", what: "the relay key pin")
    }

    /// Runs `openssl x509 -pubkey` on the relay certificate piped into `pipeline`, decoding its base64 output.
    private static func opensslBase64(_ pipeline: String, what: String) throws -> Data {
        let pem = directory.appendingPathComponent("pki/relay.pem").path
        let result = try run(["/bin/sh", "-c", "openssl x509 -in '\(pem)' -pubkey -noout" + pipeline])
        guard result.status == 0, let data = Data(base64Encoded: result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError(description: "cannot compute \(what): \(result.output)")
        }
        return data
    }

    /// A query marker unique to one test, to find its requests in the logs.
    public static func marker(_ label: String = "t") -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    /// Runs a program, returning its exit status and combined output.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        var environment = environment ?? ProcessInfo.processInfo.environment
        // Under scripts/sanitize.sh address: a child (the relayfetch executable) unwinds fully on
        // malloc, so leak suppressions can match frames inside C libraries built without frame
        // pointers; too slow for the whole suite, cheap for one short child. A caller that set
        // the unwinding itself (a long child that does not check leaks) keeps its choice.
        if let options = environment["ASAN_OPTIONS"], !options.contains("fast_unwind_on_malloc") {
            environment["ASAN_OPTIONS"] = options + ":fast_unwind_on_malloc=0"
        }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return (exitStatus(of: process), String(decoding: data, as: UTF8.self))
    }

    /// The exit status of a child whose output has ended. Foundation's `waitUntilExit` can miss a
    /// child's end and block forever (seen after a script that starts daemons, the whole suite stuck
    /// behind a zombie), so this polls, and reaps the child itself once a second has gone by.
    static func exitStatus(of process: Process) -> Int32 {
        let start = Date()
        while process.isRunning {
            if Date().timeIntervalSince(start) > 1 {
                var status: Int32 = 0
                let pid = process.processIdentifier
                if waitpid(pid, &status, WNOHANG) == pid {
                    let signal = status & 0x7f
                    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
                }
            }
            usleep(10_000)
        }
        return process.terminationStatus
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Origin access-log fields, in the order of Samples/servers/nginx.conf.in's log_format.
public enum OriginLogField: Int {
    case remoteAddress = 0, method, uri, status, serverProtocol, host, proxyAuthorization, authorization, relayToken, userAgent, bytes, cookie
}
