import Foundation
import XCTest
import RelayProfiles
import RelayFetchTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The saved relay file holds relay tokens: it must be 0600 (in a 0700 directory) from the moment
/// it exists, not made 0600 after it was written. Proven at the system-call level: this test
/// bundle saves in a child process under strace with a umask of 0, so any create that asks for
/// a wider mode would leave a wider file.
final class RelayManagerFileModeTests: XCTestCase {
    static let childDirectoryVariable = "RELAYFETCH_PRIVATE_SAVE_DIR"

    func testTheTokenFileIsCreated0600AndNeverWider() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw TestServerError(description: "strace is missing: run scripts/setup.sh")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let trace = home.appendingPathExtension("trace")
        defer { try? FileManager.default.removeItem(at: trace) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childDirectoryVariable] = home.path
        // Under scripts/sanitize.sh: LeakSanitizer cannot run under ptrace, so it is off for the traced child.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let calls = "open,openat,creat,chmod,fchmod,fchmodat,mkdir,mkdirat,rename,renameat,renameat2"
        let child = try TestServers.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=\(calls)", "-o", trace.path,
                                         bundle, "RelayProfilesTests.RelayManagerFileModeTests/testSaveInChildProcess"],
                                        environment: environment)
        XCTAssertEqual(child.status, 0, child.output)
        let directory = home.appendingPathComponent("relayfetch").path
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { $0.contains("\"\(directory)") }
        let creates = lines.filter { $0.contains("O_CREAT") || $0.contains("creat(") }
        XCTAssertFalse(creates.isEmpty, "the trace shows no file created in \(directory): \(lines)")
        for call in creates { XCTAssertTrue(call.contains(", 0600)"), "created wider than 0600: \(call)") }
        XCTAssertTrue(lines.contains { $0.contains("mkdir") && $0.hasSuffix("0700) = 0") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("rename") && $0.contains("relayfetch/relays.json\") = 0") }, "\(lines)")
        XCTAssertFalse(lines.contains { $0.contains("chmod") && $0.contains("relays.json") }, "the mode was fixed afterwards: \(lines)")

        let file = home.appendingPathComponent("relayfetch/relays.json").path
        XCTAssertEqual(try mode(file), 0o600)
        XCTAssertEqual(try mode(directory), 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertEqual(leftovers, ["relays.json"], "no temporary file is left behind")
    }

    /// Runs only as the child of the test above (skipped otherwise): saves with a umask of 0.
    func testSaveInChildProcess() throws {
        guard let home = ProcessInfo.processInfo.environment[Self.childDirectoryVariable] else {
            throw XCTSkip("runs only in the child process of testTheTokenFileIsCreated0600AndNeverWider")
        }
        umask(0)
        let manager = RelayManager(fileURL: URL(fileURLWithPath: home).appendingPathComponent("relayfetch/relays.json"))
        manager.configurations = [.init(localizedDescription: "corp", relays: [
            .init(http2RelayURL: URL(string: "https://relay.corp.example")!, additionalHTTPHeaderFields: ["Proxy-Authorization": "Bearer t"]),
        ])]
        try manager.saveToPreferences()
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
