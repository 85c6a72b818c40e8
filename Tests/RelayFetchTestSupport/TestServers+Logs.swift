import Foundation

/// Reading the servers' own logs. Every reader throws when its log is missing or unreadable, so
/// a check that a server "saw nothing" cannot pass because there was nothing to read.
extension TestServers {
    /// The HTTP/3 relays' access logs (Samples/servers/h3_relay.py).
    public static var http3RelayALog: URL { directory.appendingPathComponent("h3relay-a/access.log") }
    public static var http3RelayBLog: URL { directory.appendingPathComponent("h3relay-b/access.log") }

    /// All lines of a log, as TAB-separated fields.
    public static func allLogLines(_ log: URL) throws -> [[String]] { try logLines(log, containing: "") }

    /// Lines of a log containing `marker`, as TAB-separated fields.
    public static func logLines(_ log: URL, containing marker: String) throws -> [[String]] {
        let text: String
        do {
            text = try String(contentsOf: log, encoding: .utf8)
        } catch {
            throw TestServerError(description: "server log \(log.path) is missing or unreadable: \(error)")
        }
        return text.split(separator: "\n").filter { marker.isEmpty || $0.contains(marker) }.map { $0.components(separatedBy: "\t") }
    }

    /// Waits up to `timeout` seconds for lines with `marker` beyond the first `skipping` ones
    /// (squid logs a tunnel only when it closes); returns the new lines, or none at the timeout.
    public static func waitForLogLines(_ log: URL, containing marker: String, skipping: Int, timeout: Double = 10) throws -> [[String]] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = try logLines(log, containing: marker)
            if lines.count > skipping { return Array(lines.dropFirst(skipping)) }
            if Date() >= deadline { return [] }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
