import Foundation

/// Runs a program as a child process and measures its peak resident set size as the kernel
/// accounted it (getrusage of its parent, a small Python process that has that one child only),
/// so memory bounds are checked on the real executable, apart from the test process's own heap.
///
/// In a sanitizer build the child runs as `SanitizedChild` says (AddressSanitizer's quarantine
/// off); a bound is scaled by `SanitizedChild.scale`. Under AddressSanitizer the child also
/// unwinds on malloc by frame pointers and skips the leak check: the full unwinding leak
/// suppressions need made a page with a million url()s take 15 minutes, and a memory bound is
/// not a leak check (the commands' leaks are checked where tests run them in the test process).
public enum ChildProcessPeak {
    public struct Result {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// The child's peak resident set size (ru_maxrss), in bytes.
        public let peakBytes: Int
    }

    private static let parent = """
        import resource, subprocess, sys
        with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
            child = subprocess.run(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        print("STATUS %d PEAK-KB %d" % (child.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        """

    /// Runs `arguments` (the executable first) to its end.
    public static func run(_ arguments: [String]) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-peak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout"), err = folder.appendingPathComponent("stderr")
        let environment = SanitizedChild.environment(extraAddressSanitizerOptions: ":fast_unwind_on_malloc=1:detect_leaks=0")
        let run = try TestServers.run([HostileServer.python, "-c", parent, out.path, err.path] + arguments, environment: environment)
        let fields = run.output.split(whereSeparator: \.isWhitespace)
        guard run.status == 0, fields.count == 4, fields[0] == "STATUS", let status = Int32(fields[1]), let kilobytes = Int(fields[3]) else {
            throw TestServerError(description: "the measuring parent failed: \(run.output)")
        }
        return Result(status: status, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8),
                      peakBytes: kilobytes * 1024)
    }
}
