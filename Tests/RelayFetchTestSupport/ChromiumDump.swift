import Foundation

/// What headless Chromium (Debian's `chromium`) prints with `--dump-dom` for a local file: the
/// reference `relayfetch page --dump-dom` is compared with. Scripts stay on (Chromium reads the
/// DOM for --dump-dom with one), so compare pages whose scripts change nothing. A dead loopback
/// proxy keeps Chromium's own background requests off the network; its fresh profile folder is
/// removed afterwards.
public enum ChromiumDump {
    public static let executable = "/usr/bin/chromium"

    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public static func dom(of file: URL) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
                             "--proxy-server=http://127.0.0.1:9",
                             "--disable-background-networking", "--disable-component-update", "--no-first-run",
                             "--dump-dom", file.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let status = TestServers.exitStatus(of: process)
        guard status == 0, !data.isEmpty else {
            throw TestServerError(description: "chromium --dump-dom \(file.path) exited with status \(status), \(data.count) bytes")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
