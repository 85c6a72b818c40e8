import Foundation
import RelayFetchCLI
import Locking
import RelayFetchTestSupport

/// Runs `relayfetch` in-process with captured output.
struct CommandRun {
    let status: Int32
    let stdout: Data
    let stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    static func run(_ arguments: [String]) async -> CommandRun {
        let sink = Sink()
        let io = CommandIO(out: { sink.append(out: $0) }, err: { sink.append(err: $0) })
        let status = await CommandLineTool.run(arguments, io: io)
        return CommandRun(status: status, stdout: sink.out, stderr: sink.err)
    }

    /// The relay options that reach relay A with its token and the test CA.
    static var relayArguments: [String] {
        ["--relay", TestServers.relayURL.absoluteString, "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)",
         "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile]
    }

    /// The relay options that reach relay A, then relay B through it, each with its token.
    static var twoHopRelayArguments: [String] {
        ["--relay", TestServers.relayURL.absoluteString, "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)",
         "--relay-cacert", TestServers.caFile,
         "--relay", TestServers.relayBURL.absoluteString, "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)",
         "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile]
    }

    /// Starts the built executable with `arguments` as a process of its own (its output
    /// discarded), for tests that stop, kill or race it.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The built executable, for tests that need a real process (exit codes, strace): the one
    /// next to this test bundle, so a sanitizer build (its own scratch path) tests its own.
    static var executable: String {
        if let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let sibling = URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("relayfetch").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return TestServers.repository.appendingPathComponent(".build/debug/relayfetch").path
    }
}

private final class Sink: Sendable {
    private let captured = Locked((out: Data(), err: ""))
    var out: Data { captured.withLock { $0.out } }
    var err: String { captured.withLock { $0.err } }
    func append(out data: Data) { captured.withLock { $0.out += data } }
    func append(err text: String) { captured.withLock { $0.err += text } }
}
