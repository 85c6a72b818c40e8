import Foundation
import RelayFetchTestSupport

/// A Python script that opens client connections, prints one line when they are all up and then
/// holds them until `release()` (a line on its standard input): the proxy tests' hostile, idle
/// and held-tunnel clients. Also reads a process's resident size, which those tests bound.
final class HeldClients {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Runs `script` and waits for its first line of output, which `line` then holds.
    private(set) var line = ""

    init(script: String) throws {
        process.executableURL = URL(fileURLWithPath: HostileServer.python)
        process.arguments = ["-c", script]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        line = readLine()
    }

    /// The script's next line of output, without its line feed (what is left at its end).
    func readLine() -> String {
        var bytes = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Lets the script go on: close its connections and end, or whatever it waits to do.
    func release() { input.fileHandleForWriting.write(Data("done\n".utf8)) }

    /// Kilobytes of resident memory of `pid` (VmRSS), from the process, not its own counters.
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else {
            throw TestServerError(description: "no VmRSS for \(pid)")
        }
        return kib
    }
}
