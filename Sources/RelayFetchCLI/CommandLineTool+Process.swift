internal import COpenSSL

extension CommandLineTool {
    /// The tool's process-wide choice about OpenSSL, made first thing in `main`, before any
    /// library starts it: OpenSSL keeps its global state until the process ends instead of
    /// freeing it from the atexit handler it would otherwise register (OPENSSL_cleanup). That
    /// handler assumes no other thread is alive: it frees every thread's OpenSSL state without
    /// the lock a thread that ends at that moment takes to free its own. A session's curl or I/O
    /// thread (or a pool thread that used OpenSSL) ending while the tool exits made both free the
    /// same block: "double free or corruption" after a crawl's summary, about one run in 200
    /// (OpenSSL issue 6214). The kernel takes the memory back either way.
    public static func prepareProcess() {
        // Fails only when memory runs out; OpenSSL then starts later as usual, handler included.
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
