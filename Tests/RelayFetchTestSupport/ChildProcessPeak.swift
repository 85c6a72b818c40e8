#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs a program as a child process and measures its peak resident set size as the kernel
/// accounted it (getrusage of its parent, a small Python process that has that one child only),
/// so memory bounds are checked on the real executable, apart from the test process's own heap.
///
/// Under AddressSanitizer (this test process built with it, so the executable beside it too)
/// the child runs with the quarantine off: freed blocks are reused at once, as a plain build's
/// allocator does, instead of up to 256 MiB of them staying resident. What remains is the
/// sanitizer's own cost for the memory the program holds (shadow, redzones, chunk headers),
/// which `sanitizerScale` accounts for, as it does for ThreadSanitizer's shadow. Under
/// AddressSanitizer the child unwinds on malloc by frame pointers and skips the leak check:
/// the full unwinding leak suppressions need made a page with a million url()s take 15
/// minutes, and a memory bound is not a leak check (the commands' leaks are checked where
/// tests run them in the test process).
public enum ChildProcessPeak {
    private static let sanitizer: String? = {
        let program = dlopen(nil, RTLD_NOW)
        if dlsym(program, "__asan_init") != nil { return "address" }
        return dlsym(program, "__tsan_init") != nil ? "thread" : nil
    }()

    /// How much more resident memory the same work takes in the sanitizer build the child
    /// runs in (1 in a plain build): a bound meant for a plain build is multiplied by it.
    /// `relayfetch page` on million-url() sheets (PageMemoryBoundTests) peaked at 114 and 110
    /// MiB in the plain debug build; under AddressSanitizer with the quarantine off at 160 and
    /// 129 MiB (589 and 438 MiB with it): the shadow is an eighth of what is touched, and each
    /// small string or array carries a chunk header and a redzone. ThreadSanitizer's shadow
    /// is twice what is touched and its metadata half as much again.
    public static var sanitizerScale: Double {
        switch sanitizer {
        case "address": 1.5
        case "thread": 4
        default: 1
        }
    }

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
        var environment = ProcessInfo.processInfo.environment
        if sanitizer == "address" {
            environment["ASAN_OPTIONS", default: ""] += ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0:fast_unwind_on_malloc=1:detect_leaks=0"
        }
        let run = try TestServers.run([HostileServer.python, "-c", parent, out.path, err.path] + arguments, environment: environment)
        let fields = run.output.split(whereSeparator: \.isWhitespace)
        guard run.status == 0, fields.count == 4, fields[0] == "STATUS", let status = Int32(fields[1]), let kilobytes = Int(fields[3]) else {
            throw TestServerError(description: "the measuring parent failed: \(run.output)")
        }
        return Result(status: status, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8),
                      peakBytes: kilobytes * 1024)
    }
}
