/// A relay's `Alt-Svc` answer (RFC 7838) as far as relayfetch uses it: the port where the same
/// host serves HTTP/3, or `clear`. Alternatives on other hosts are ignored (the relay's
/// certificate is checked for the name it was dialled by).
enum AltService: Equatable {
    case http3(port: UInt16)
    case clear

    /// The first same-host h3 alternative in a field value such as `h3=":4433"; ma=86400, h2=":443"`.
    static func parse(_ value: String) -> AltService? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed == "clear" { return .clear }
        for entry in trimmed.split(separator: ",") {
            let alternative = entry.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            guard let equals = alternative.firstIndex(of: "=") else { continue }
            let protocolID = alternative[..<equals].trimmingCharacters(in: .whitespaces)
            var authority = alternative[alternative.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard protocolID == "h3", authority.count >= 2, authority.hasPrefix("\""), authority.hasSuffix("\"") else { continue }
            authority = String(authority.dropFirst().dropLast())
            guard authority.hasPrefix(":"), let port = UInt16(authority.dropFirst()), port > 0 else { continue }
            return .http3(port: port)
        }
        return nil
    }
}

/// A tunnel layer that read the relay's answer to its CONNECT.
protocol ConnectAnswer: AnyObject {
    /// The answer's `Alt-Svc` field, if it had one.
    var altSvc: String? { get }
    /// A 407's `Proxy-Authenticate` values, in order (empty for any other answer).
    var proxyAuthenticate: [String] { get }
}

/// The HTTP/3 ports first-hop relays named for themselves in Alt-Svc, by the TCP endpoint's
/// "host:port"; kept for the session (a `clear` forgets). Relays the user told to speak HTTP/1.1
/// or HTTP/2 only are not listened to.
struct AltServiceMemory {
    private var ports: [String: UInt16] = [:]

    func http3Port(for authority: String) -> UInt16? { ports[authority] }

    mutating func remember(_ value: String, from relay: RelayEndpoint) {
        guard relay.usesTLS, relay.relayProtocol == .automatic else { return }
        switch AltService.parse(value) {
        case .http3(let port)?: ports[relay.authority] = port
        case .clear?: ports[relay.authority] = nil
        case nil: break
        }
    }
}
