import Foundation
import RelayFetch

// relayfetch-bench: workloads through the real test relays, each beside a peer measured in the
// same run. Run through Benchmarks/run.sh, which builds in release mode and starts the servers.

let arguments = CommandLine.arguments.dropFirst()
let servers = URL(fileURLWithPath: ProcessInfo.processInfo.environment["RELAYFETCH_SERVERS_DIR"] ?? ".build/test-servers")
let caFile = servers.appendingPathComponent("pki/ca.pem").path
let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 11

switch arguments.first {
case "chains":
    await ChainBenchmark(servers: servers, caFile: caFile, rounds: rounds).run()
case "ohttp":
    await ObliviousBenchmark(servers: servers, caFile: caFile).run()
default:
    FileHandle.standardError.write(Data("usage: relayfetch-bench chains|ohttp\n".utf8))
    exit(2)
}
