#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a memory bound on a child process (the relayfetch executable, built beside this test
/// process and so with the same sanitizer) needs in a sanitizer build. AddressSanitizer keeps up
/// to 256 MiB of freed blocks in its quarantine, resident and unused: the child runs with the
/// quarantine off, so freed blocks are reused at once as a plain build's allocator does. What
/// remains is the sanitizer's own cost for the memory the program holds, by which a bound meant
/// for a plain build is scaled.
public enum SanitizedChild {
    private static let sanitizer: String? = {
        let program = dlopen(nil, RTLD_NOW)
        if dlsym(program, "__asan_init") != nil { return "address" }
        return dlsym(program, "__tsan_init") != nil ? "thread" : nil
    }()

    /// Whether the child runs under AddressSanitizer.
    public static var underAddressSanitizer: Bool { sanitizer == "address" }

    /// How much more resident memory the same work takes in this build (1 in a plain build).
    /// `relayfetch page` on million-url() sheets (PageMemoryBoundTests) peaked at 114 and 110
    /// MiB in the plain debug build; under AddressSanitizer with the quarantine off at 160 and
    /// 130 MiB (589 and 438 MiB with it; 849 MiB with the style limits raised out of the way):
    /// the shadow is an eighth of what is touched, and each small string or array carries a
    /// chunk header and a redzone. An idle proxied tunnel (ProxyIdleMemoryTests) cost 91 KiB
    /// there against its 64 KiB bound (2-7 KiB in a plain build). Under ThreadSanitizer the page
    /// peaked at 222 MiB: its shadow is twice what is touched, its metadata half as much again.
    public static var scale: Double {
        switch sanitizer {
        case "address": 2
        case "thread": 4
        default: 1
        }
    }

    /// The environment for a child whose memory is measured: this process's, with
    /// AddressSanitizer's quarantine off when it applies, and `extraAddressSanitizerOptions`.
    public static func environment(extraAddressSanitizerOptions: String = "") -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if underAddressSanitizer {
            environment["ASAN_OPTIONS", default: ""] += ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0" + extraAddressSanitizerOptions
        }
        return environment
    }
}
