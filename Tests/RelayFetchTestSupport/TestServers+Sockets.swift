import Foundation

/// What the kernel says this test process is connected to. Where a relay's log cannot tell one
/// client connection from another (nghttpx and squid log no client port), this is the witness
/// for connection counts instead of the client's own counters; where the relay does log the
/// client's port (the HTTP/3 relays), it ties the relay's log lines to this process.
extension TestServers {
    public enum SocketKind: String { case tcp = "-t", udp = "-u" }

    /// The local `address:port` of each socket of this process connected to `peer`
    /// (`address:port`): established TCP connections, or connected UDP sockets.
    public static func ownSockets(_ kind: SocketKind, to peer: String) throws -> [String] {
        let result = try run(["/usr/bin/ss", "-H", "-n", "-p", kind.rawValue, "state", "established", "dst", peer])
        guard result.status == 0 else { throw TestServerError(description: "ss failed: \(result.output)") }
        let owner = "pid=\(ProcessInfo.processInfo.processIdentifier),"
        return result.output.split(separator: "\n").filter { $0.contains(owner) }.compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let peerIndex = fields.firstIndex(where: { $0 == peer }), peerIndex > 0 else { return nil }
            return String(fields[peerIndex - 1])
        }
    }

    /// The lines an HTTP/3 relay logged, beyond its first `skipping`, for connections from the
    /// local addresses `ours` (from `ownSockets(.udp, to:)`, taken while those sockets were open).
    public static func http3RelayLines(_ log: URL, skipping: Int, from ours: [String]) throws -> [[String]] {
        try allLogLines(log).dropFirst(skipping).filter { $0.count > HTTP3RelayLogField.peer.rawValue && ours.contains($0[HTTP3RelayLogField.peer.rawValue]) }
    }
}
