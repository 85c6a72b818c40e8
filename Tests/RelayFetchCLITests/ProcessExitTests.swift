import COpenSSL
import Foundation
import RelayFetchCLI
import RelayFetchTestSupport
import XCTest

/// What runs when the tool exits: OpenSSL must free nothing then, since a thread that used it
/// (a session's curl or I/O thread, a pool thread) may be ending at that moment, and
/// OPENSSL_cleanup frees every thread's state without the lock such a thread takes to free its
/// own. The check runs in a child process (this test bundle again, one test only) that starts
/// as `main` does and exits.
final class ProcessExitTests: XCTestCase {
    private static let childVariable = "RELAYFETCH_PROCESS_EXIT_CHILD"

    func testOpenSSLRunsNoCleanupWhenTheToolExits() throws {
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "1"
        let child = try TestServers.run([bundle, "RelayFetchCLITests.ProcessExitTests/testChildExitsAsTheToolDoes"], environment: environment)
        XCTAssertTrue(child.output.contains("child: used OpenSSL on another thread, exiting"), "the child did not run: \(child.output)")
        XCTAssertFalse(child.output.contains("OPENSSL_cleanup ran"), child.output)
        XCTAssertEqual(child.status, 0, child.output)
    }

    /// The child's part (does nothing in a normal run): prepares the process like `main`, has
    /// another thread use OpenSSL (per-thread state, as TLS and random numbers make), asks OpenSSL
    /// to print a line from OPENSSL_cleanup if it ever runs, and exits.
    func testChildExitsAsTheToolDoes() {
        guard ProcessInfo.processInfo.environment[Self.childVariable] != nil else { return }
        CommandLineTool.prepareProcess()
        let used = DispatchSemaphore(value: 0)
        Thread {
            var bytes = [UInt8](repeating: 0, count: 16)
            _ = RAND_bytes(&bytes, Int32(bytes.count))
            used.signal()
        }.start()
        used.wait()
        XCTAssertEqual(OPENSSL_atexit { _ = write(STDOUT_FILENO, "OPENSSL_cleanup ran\n", 20) }, 1)
        let line = "child: used OpenSSL on another thread, exiting\n"
        _ = write(STDOUT_FILENO, line, line.utf8.count)
        exit(0)
    }
}
