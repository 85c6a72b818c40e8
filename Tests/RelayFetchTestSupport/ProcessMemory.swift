#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Locking
internal import CLinux

/// The test process's memory, from /proc/self/status.
public enum ProcessMemory {
    /// Resets the peak resident set size (VmHWM) to the current one (proc(5), clear_refs "5").
    public static func resetPeak() throws {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM (peak) and VmRSS (now), in bytes.
    public static func current() throws -> (peak: Int, resident: Int) {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func value(_ name: String) throws -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                  let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else {
                throw TestServerError(description: "no \(name) in /proc/self/status")
            }
            return kilobytes * 1024
        }
        return (try value("VmHWM"), try value("VmRSS"))
    }

    /// The heap bytes the program holds now: allocated and not freed, as the sanitizer's
    /// allocator counts them in a sanitizer build, else as glibc's malloc does (mallinfo2).
    /// Unlike the resident size it counts a block whose pages were never touched, and not a
    /// freed one the allocator keeps mapped (or in AddressSanitizer's quarantine).
    public static var heapBytes: Int { sanitizerHeapBytes ?? Int(rf_heap_bytes_in_use()) }

    /// The heap bytes the program holds now, as a sanitizer's allocator counts them; nil in a
    /// build without AddressSanitizer or ThreadSanitizer (their runtimes export the count).
    /// The runtime sums each thread's own tally (bytes it allocated, bytes it freed) without a
    /// lock, and a thread that ends moves its tally to a shared one: a read that meets the end
    /// counts that thread twice. One that allocated what others freed (a transfer's thread
    /// whose buffers the reader frees) then adds its whole net allocation for that one read:
    /// 252 MB in SpooledArchiveTests, and twice the true peak in a C program whose producer
    /// threads end while another thread reads (512 MiB read for 256 MiB live). The same read
    /// at once again no longer meets that end, so the smaller of two reads in a row is the
    /// heap the program holds (the C program: 256 MiB).
    public static var sanitizerHeapBytes: Int? {
        guard let read = sanitizerAllocatedBytes else { return nil }
        return min(read(), read())
    }

    private typealias AllocatedBytes = @convention(c) () -> Int
    private static let sanitizerAllocatedBytes: AllocatedBytes? =
        dlsym(dlopen(nil, RTLD_NOW), "__sanitizer_get_current_allocated_bytes").map { unsafeBitCast($0, to: AllocatedBytes.self) }
}

/// How much more memory the test process held at its peak, from `init` to `stop`, than when it
/// started. In a plain build: the peak resident size (VmHWM, reset at the start) over the
/// resident size at the start. Under a sanitizer the resident size also counts what the
/// sanitizer keeps for itself (AddressSanitizer's quarantine of freed blocks, 256 MiB by
/// default, and shadow memory), which a long transfer fills however little it holds, so the
/// gauge samples the sanitizer allocator's live heap bytes every millisecond on a thread of
/// its own and keeps the largest: memory the code holds, as a plain build's growth mostly is.
/// Either way a body held whole, or a buffer growing with it, shows as growth.
public final class MemoryPeak: Sendable {
    /// What the gauge measures, for the test's message.
    public let measure: String
    private let start: Int
    private let sampling = Locked((running: true, peak: 0, done: false))

    public init() throws {
        guard let live = ProcessMemory.sanitizerHeapBytes else {
            measure = "peak resident size"
            try ProcessMemory.resetPeak()
            start = try ProcessMemory.current().resident
            return
        }
        measure = "peak live heap (sanitizer allocator)"
        start = live
        sampling.withLock { $0.peak = live }
        Thread { [sampling] in
            while sampling.withLock({ $0.running }) {
                let now = ProcessMemory.sanitizerHeapBytes ?? 0
                sampling.withLock { $0.peak = max($0.peak, now) }
                usleep(1000)
            }
            sampling.withLock { $0.done = true }
        }.start()
    }

    /// Stops the gauge: the growth in bytes, and the peak itself.
    public func stop() throws -> (growth: Int, peak: Int) {
        guard ProcessMemory.sanitizerHeapBytes != nil else {
            let peak = try ProcessMemory.current().peak
            return (peak - start, peak)
        }
        let now = ProcessMemory.sanitizerHeapBytes ?? 0
        sampling.withLock {
            $0.running = false
            $0.peak = max($0.peak, now)
        }
        while !sampling.withLock({ $0.done }) { usleep(1000) }
        let peak = sampling.withLock { $0.peak }
        return (peak - start, peak)
    }
}
