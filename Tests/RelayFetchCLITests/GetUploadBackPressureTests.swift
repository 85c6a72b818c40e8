import Foundation
import XCTest
import RelayFetchTestSupport

/// `get -T -` reads standard input only as fast as the origin takes the body: a writer that
/// pushes as fast as the pipe lets it gets only so far ahead of a slow origin (the echo origin
/// reading 64 KiB every 20 ms, about 3 MB/s, through relay A). A `get` that read its input
/// whole before sending would let the writer fill memory at pipe speed instead.
///
/// Both routes to an HTTP/1.1 relay: libcurl's own proxy (`--relay-protocol h1`), where the
/// kernel's socket buffers hold libcurl back, and a tunnel the session builds, where the bridge
/// stops reading libcurl's socket while more than 1 MiB waits in the TCP, TLS and CONNECT layers
/// (before, it read everything: 132 MB ahead in 4 s). HTTP/2 and HTTP/3 tunnels count their
/// streams' unsent bytes too (`GetUploadBackPressureTests+Multiplexed.swift`).
final class GetUploadBackPressureTests: XCTestCase {
    /// Starts the command with a pipe as standard input, writes to it without blocking for
    /// `seconds`, then prints the bytes written and kills the command.
    private static let writer = """
    import os, subprocess, sys, time
    seconds = float(sys.argv[1])
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fd = child.stdin.fileno()
    os.set_blocking(fd, False)
    piece, written, start = b"x" * 65536, 0, time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            written += os.write(fd, piece)
        except BlockingIOError:
            time.sleep(0.005)
    print(written)
    child.kill()
    child.wait()
    """

    func testAPipedUploadIsReadNoFasterThanASlowOriginTakesIt() throws {
        for route in [["--relay-protocol", "h1"], []] {
            let written = try bytesWritten(route: CommandRun.relayArguments + route, readDelay: 20, seconds: 4)
            // What may sit between the writer and the origin: the pipe, four 64 KiB pieces in the
            // reader, and the kernel's socket buffers on each loopback connection of the route. At
            // pipe speed, 4 s would be gigabytes.
            XCTAssertLessThan(written, 64 << 20, "\(route): the writer got \(written) bytes ahead: standard input was not read at the origin's pace")
        }
    }

    /// Runs `get -T -` to the echo origin (reading 64 KiB every `readDelay` ms) with `route`'s
    /// relay options, fed by the writer for `seconds`; returns the bytes it wrote.
    func bytesWritten(route: [String], readDelay: Int, seconds: Int) throws -> Int {
        try TestServers.ensureRunning()
        let origin = try HostileServer(script: "echo_origin.py")
        defer { origin.stop() }
        let marker = TestServers.marker("back-pressure")
        let run = try TestServers.run([HostileServer.python, "-c", Self.writer, String(seconds), CommandRun.executable, "get",
                                       "https://origin.test:\(origin.port)/upload?read-delay=\(readDelay)&\(marker)", "-T", "-", "-s"]
                                      + route)
        XCTAssertEqual(run.status, 0, run.output)
        let written = try XCTUnwrap(Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)), run.output)
        // The origin's pace: it must have taken the body (a stalled transfer would prove nothing).
        XCTAssertGreaterThan(written, 2 << 20, "\(route): the upload moved (a few MB at the origin's pace)")
        return written
    }
}
