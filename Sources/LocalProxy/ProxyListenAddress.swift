/// Where the proxy listens (`--listen`): a TCP address (`127.0.0.1:1080`, `[::1]:1080`, a port
/// alone meaning 127.0.0.1) or a Unix socket (`unix:PATH`, created with `mode`).
package enum ProxyListenAddress: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    package static let defaultPort: UInt16 = 1080

    /// Parses the option's value; nil when it is none of the forms above.
    package init?(_ text: String) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty, path.utf8.count < 108 else { return nil }  // sun_path
            self = .unix(path: path)
            return
        }
        if let port = UInt16(text), port > 0 {
            self = .tcp(host: "127.0.0.1", port: port)
            return
        }
        guard let (host, port) = TargetHost.authority(Substring(text), defaultPort: Self.defaultPort),
              TargetHost.isAddressLiteral(host) else { return nil }
        self = .tcp(host: host, port: port)
    }

    /// Whether only this machine can reach it: a loopback address or a Unix socket.
    package var isLoopback: Bool {
        switch self {
        case .unix: return true
        case .tcp(let host, _): return host == "::1" || host.hasPrefix("127.")
        }
    }

    package var description: String {
        switch self {
        case .unix(let path): return "unix:\(path)"
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}
