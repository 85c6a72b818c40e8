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

    /// Waits up to `timeout` seconds for at least `count` lines with `marker` beyond the first
    /// `skipping` ones (squid logs a tunnel only when it closes); returns the new lines, or none
    /// at the timeout.
    public static func waitForLogLines(_ log: URL, containing marker: String, skipping: Int, count: Int = 1,
                                       timeout: Double = 10) throws -> [[String]] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = try logLines(log, containing: marker)
            if lines.count >= skipping + count { return Array(lines.dropFirst(skipping)) }
            if Date() >= deadline { return [] }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}

/// nghttpx access-log fields (Samples/servers/nghttpx.conf.in). There is no client port, so
/// lines cannot be told apart by client connection.
public enum HTTP2RelayLogField: Int {
    case time = 0, remoteAddress, alpn, method, path, status, proxyAuthorization
}

/// HTTP/3 relay access-log fields (Samples/servers/h3_relay.py); `peer` is the client's
/// address:port, so one QUIC connection's lines share it.
public enum HTTP3RelayLogField: Int {
    case time = 0, peer, method, connectProtocol, authority, path, status, proxyAuthorization
}

/// squid access-log fields (Samples/servers/squid.conf.in, logformat relayfetch), written when a
/// tunnel closes. There is no client port.
public enum SquidLogField: Int {
    case time = 0, clientAddress, method, url, status, upstreamAddress, proxyAuthorization
}

extension Array where Element == [String] {
    /// The lines whose `field` equals `value`.
    public func with<Field: RawRepresentable>(_ field: Field, _ value: String) -> [[String]] where Field.RawValue == Int {
        filter { $0.count > field.rawValue && $0[field.rawValue] == value }
    }

    /// The values of `field` on every line (lines too short give "").
    public func values<Field: RawRepresentable>(_ field: Field) -> [String] where Field.RawValue == Int {
        map { $0.count > field.rawValue ? $0[field.rawValue] : "" }
    }
}
