/// The server side of a SOCKS5 handshake (RFC 1928) with username/password authentication
/// (RFC 1929), without any I/O: each `receive(_:)` takes what the client sent and says what to
/// answer and whether to wait, open a tunnel or close. A domain name target is kept as a name
/// (it is resolved by the last relay, never here). CONNECT and UDP ASSOCIATE are carried; BIND
/// gets "command not supported". Nothing is buffered beyond one message, so a
/// client cannot make it grow: the longest message is the RFC 1929 one (513 bytes).
package struct SOCKS5ServerHandshake: Sendable {
    private enum State: Sendable { case greeting, authentication, request, done }

    package static let version: UInt8 = 5
    private static let noAuthentication: UInt8 = 0x00
    private static let usernamePassword: UInt8 = 0x02

    private var state = State.greeting
    private var buffer: [UInt8] = []
    private let credentials: ProxyCredentials
    private var identity: String?

    package init(credentials: ProxyCredentials) {
        self.credentials = credentials
    }

    /// Takes bytes from the client. Once the handshake is done (open or closed) it takes nothing more.
    package mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        guard state != .done else { return ProxyHandshakeStep(next: .wait) }
        buffer += bytes
        var reply: [UInt8] = []
        // A client may pipeline its messages: answer each complete one in turn.
        while true {
            let step: ProxyHandshakeStep?
            switch state {
            case .greeting: step = greeting()
            case .authentication: step = authentication()
            case .request: step = request()
            case .done: step = nil
            }
            guard let step else { return ProxyHandshakeStep(reply: reply, next: .wait) }
            reply += step.reply
            if step.next != .wait {
                state = .done
                buffer = []
                return ProxyHandshakeStep(reply: reply, next: step.next)
            }
        }
    }

    /// The reply to a CONNECT (RFC 1928 §6): success, or the code for `refusal`. The bound
    /// address is given as 0.0.0.0:0, as the relays keep the real one to themselves.
    package static func reply(_ refusal: ProxyRefusal?) -> [UInt8] {
        [version, code(refusal), 0x00, 0x01, 0, 0, 0, 0, 0, 0]
    }

    private static func code(_ refusal: ProxyRefusal?) -> UInt8 {
        switch refusal {
        case nil: return 0x00
        case .generalFailure: return 0x01
        case .notAllowed: return 0x02
        case .relayUnreachable: return 0x03
        case .hostUnreachable: return 0x04
        case .connectionRefused: return 0x05
        case .timedOut: return 0x06
        case .unsupported: return 0x07
        }
    }

    /// VER, NMETHODS, METHODS: picks username/password when credentials are required, else none.
    private mutating func greeting() -> ProxyHandshakeStep? {
        guard buffer.count >= 2 else { return nil }
        guard buffer[0] == Self.version else { return ProxyHandshakeStep(next: .close) }
        let count = Int(buffer[1])
        guard buffer.count >= 2 + count else { return nil }
        let methods = buffer[2..<(2 + count)]
        buffer.removeFirst(2 + count)
        let wanted = credentials.required ? Self.usernamePassword : Self.noAuthentication
        guard methods.contains(wanted) else { return ProxyHandshakeStep(reply: [Self.version, 0xFF], next: .close) }
        state = credentials.required ? .authentication : .request
        return ProxyHandshakeStep(reply: [Self.version, wanted], next: .wait)
    }

    /// RFC 1929: VER(1), ULEN, UNAME, PLEN, PASSWD; any status but 0 closes the connection.
    private mutating func authentication() -> ProxyHandshakeStep? {
        guard buffer.count >= 2 else { return nil }
        guard buffer[0] == 0x01 else { return ProxyHandshakeStep(reply: [0x01, 0x01], next: .close) }
        let nameLength = Int(buffer[1])
        guard buffer.count >= 3 + nameLength else { return nil }
        let passwordLength = Int(buffer[2 + nameLength])
        guard buffer.count >= 3 + nameLength + passwordLength else { return nil }
        let name = String(decoding: buffer[2..<(2 + nameLength)], as: UTF8.self)
        let password = Array(buffer[(3 + nameLength)..<(3 + nameLength + passwordLength)])
        buffer.removeFirst(3 + nameLength + passwordLength)
        guard credentials.accepts(username: name, password: password) else { return ProxyHandshakeStep(reply: [0x01, 0x01], next: .close) }
        identity = name
        state = .request
        return ProxyHandshakeStep(reply: [0x01, 0x00], next: .wait)
    }

    /// VER, CMD, RSV, ATYP, DST.ADDR, DST.PORT.
    private mutating func request() -> ProxyHandshakeStep? {
        guard buffer.count >= 5 else { return nil }
        guard buffer[0] == Self.version else { return ProxyHandshakeStep(next: .close) }
        let addressLength: Int
        switch buffer[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03: addressLength = 1 + Int(buffer[4])
        default: return ProxyHandshakeStep(reply: Self.failure(0x08), next: .close)  // address type not supported
        }
        guard buffer.count >= 4 + addressLength + 2 else { return nil }
        let address = Array(buffer[4..<(4 + addressLength)])
        let port = UInt16(buffer[4 + addressLength]) << 8 | UInt16(buffer[5 + addressLength])
        let command = buffer[1]
        let rest = Array(buffer[(6 + addressLength)...])
        guard command == 0x01 || command == 0x03 else { return ProxyHandshakeStep(reply: Self.failure(0x07), next: .close) }  // BIND
        guard let host = Self.host(type: buffer[3], address) else { return ProxyHandshakeStep(reply: Self.failure(0x01), next: .close) }
        // For UDP ASSOCIATE the address is where the client will send from (often 0.0.0.0:0).
        return ProxyHandshakeStep(next: .open(ProxyRequest(dialect: command == 0x01 ? .socks5 : .socks5Associate, host: host, port: port,
                                                           identity: identity, firstBytes: rest)))
    }

    private static func failure(_ code: UInt8) -> [UInt8] { [version, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0] }

    /// The success reply to UDP ASSOCIATE: the IPv4 address and port datagrams go to.
    package static func associated(address: [UInt8], port: UInt16) -> [UInt8] {
        [version, 0x00, 0x00, address.count == 16 ? 0x04 : 0x01] + address + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    /// The target as text: a dotted quad, an IPv6 address (bare, as `TunnelTarget` wants it) or
    /// the name; nil for an empty name or one with bytes no host name has.
    static func host(type: UInt8, _ address: [UInt8]) -> String? {
        switch type {
        case 0x01: return address.map(String.init).joined(separator: ".")
        case 0x04: return TargetHost.ipv6(address)
        default:
            let name = address.dropFirst()
            guard !name.isEmpty, name.allSatisfy(TargetHost.allows) else { return nil }
            return String(decoding: name, as: UTF8.self).lowercased()
        }
    }
}
