import Foundation
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Under AddressSanitizer, LeakSanitizer's check runs as the test process exits but before
/// OpenSSL's own exit handler. That handler (OPENSSL_cleanup) frees OpenSSL's list of per-thread
/// states, dropping the only pointer to the random generators of threads that are still alive
/// (Swift's concurrency pool threads that ran key generation or HPKE in a test): LeakSanitizer's
/// usual check, which runs after every other exit handler, reported them. In this process the
/// fast unwinder cannot walk libcrypto's frames, so the report names only `CRYPTO_zalloc` and no
/// suppression could single them out. Memory our code leaks is just as unreachable before
/// OpenSSL's cleanup, so checking earlier misses nothing. A plain build has no LeakSanitizer:
/// then this does nothing.
enum LeakCheckBeforeOpenSSLCleanup {
    private static let installed: Void = {
        guard let symbol = dlsym(nil, "__lsan_do_leak_check") else { return }
        // OpenSSL registers its exit handler when first initialised; exit handlers run last
        // registered first, so ours must come after it.
        _ = OPENSSL_init_crypto(0, nil)
        check = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
        atexit { LeakCheckBeforeOpenSSLCleanup.check?() }
    }()
    nonisolated(unsafe) private static var check: (@convention(c) () -> Void)?

    /// Installs the early check once (a no-op without LeakSanitizer).
    static func install() { _ = installed }
}
