import WireFormat

/// The client side of a SOCKS5 CONNECT (RFC 1928), with username/password authentication
/// (RFC 1929) when there are credentials, as a `TunnelHandshake` without any I/O: `start()` gives
/// the greeting, each `receive(_:)` takes what the server sent and says what to send next, to
/// wait for more, that the tunnel is open (with any bytes past the server's reply, which are the
/// tunnel's), or why it failed, naming the hop. The target travels as a name (ATYP X'03') unless
/// it is an IP literal, so the SOCKS server resolves it, never this client.
struct SOCKS5Handshake: TunnelHandshake {
    private enum State { case idle, awaitingMethod, awaitingAuthentication, awaitingReply, done }

    private static let version: UInt8 = 5
    private static let noAuthentication: UInt8 = 0x00
    private static let usernamePassword: UInt8 = 0x02
    private static let noAcceptableMethod: UInt8 = 0xFF

    private var state = State.idle
    private var buffer: [UInt8] = []
    /// The CONNECT request, made up front so that a target SOCKS5 cannot name fails before any byte is sent.
    private let request: [UInt8]
    /// The RFC 1929 sub-negotiation, when there are credentials.
    private let authentication: [UInt8]?
    private let hop: HopDescription
    /// The relay the tunnel leads to, if any: a reply that the target is unreachable names it.
    private let nextHop: HopDescription?

    /// Throws `.unsupported`, naming `hop`, for a target name, username or password that
    /// SOCKS5's one-byte lengths cannot carry (empty, or over 255 bytes).
    init(target: TunnelTarget, credentials: RelayCredentials?, hop: HopDescription, nextHop: HopDescription?) throws(RelayError) {
        self.hop = hop
        self.nextHop = nextHop
        func counted(_ text: String, _ what: String) throws(RelayError) -> [UInt8] {
            let bytes = Array(text.utf8)
            guard (1...255).contains(bytes.count) else {
                throw RelayError(hop: hop, cause: .unsupported("SOCKS5 cannot carry \(what): it must be 1 to 255 bytes"))
            }
            return [UInt8(bytes.count)] + bytes
        }
        var request: [UInt8] = [Self.version, 0x01, 0x00]  // CONNECT, reserved
        if let address = SocketAddress.literalBytes(target.host) {
            request += [address.count == 4 ? 0x01 : 0x04] + address
        } else {
            request += [0x03] + (try counted(target.host, "the target name \(target.host)"))
        }
        request.appendBigEndian(target.port)
        self.request = request
        if let credentials {
            authentication = [0x01] + (try counted(credentials.username, "the username")) + (try counted(credentials.password, "the password"))
        } else {
            authentication = nil
        }
    }

    /// The methods offered, for the greeting and for the error when none is accepted.
    private var methods: [UInt8] { authentication == nil ? [Self.noAuthentication] : [Self.noAuthentication, Self.usernamePassword] }

    /// The greeting (version and the authentication methods offered), to send first.
    mutating func start() -> [UInt8] {
        state = .awaitingMethod
        return [Self.version, UInt8(methods.count)] + methods
    }

    /// Takes bytes from the server; once the handshake is done (open or failed) it takes nothing more.
    mutating func receive(_ bytes: [UInt8]) -> TunnelHandshakeStep {
        buffer += bytes
        switch state {
        case .idle: return fail(.protocolError("the SOCKS5 server spoke before the greeting"))
        case .awaitingMethod: return methodChosen()
        case .awaitingAuthentication: return authenticated()
        case .awaitingReply: return replied()
        case .done: return .needMore
        }
    }

    /// The server's choice of method (RFC 1928 §3): VER, METHOD.
    private mutating func methodChosen() -> TunnelHandshakeStep {
        guard buffer.count >= 2 else { return .needMore }
        guard buffer[0] == Self.version else { return fail(.protocolError("not a SOCKS5 server (version \(buffer[0]) in its method selection)")) }
        let method = buffer[1]
        guard buffer.count == 2 else { return fail(.protocolError("the SOCKS5 server sent more than its method selection")) }
        buffer = []
        switch method {
        case Self.noAuthentication:
            state = .awaitingReply
            return .send(request)
        case Self.usernamePassword where authentication != nil:
            state = .awaitingAuthentication
            return .send(authentication ?? [])  // never empty: the case requires it
        case Self.noAcceptableMethod:
            return fail(.socksNoAcceptableMethod(offered: authentication == nil ? "no authentication" : "no authentication, username/password"))
        default:
            return fail(.protocolError("the SOCKS5 server chose method X'\(Self.hex(method))', which was not offered"))
        }
    }

    /// The server's verdict on the username and password (RFC 1929 §2): VER (1), STATUS.
    private mutating func authenticated() -> TunnelHandshakeStep {
        guard buffer.count >= 2 else { return .needMore }
        guard buffer[0] == 0x01 else { return fail(.protocolError("the SOCKS5 server's authentication answer has version \(buffer[0]), not 1")) }
        guard buffer[1] == 0 else { return fail(.socksAuthenticationFailed(status: Int(buffer[1]))) }
        guard buffer.count == 2 else { return fail(.protocolError("the SOCKS5 server sent more than its authentication answer")) }
        buffer = []
        state = .awaitingReply
        return .send(request)
    }

    /// The server's reply to CONNECT (RFC 1928 §6): VER, REP, RSV, ATYP, BND.ADDR, BND.PORT;
    /// a failure is told as soon as REP arrives, naming the next hop when that is what the
    /// server could not reach.
    private mutating func replied() -> TunnelHandshakeStep {
        guard buffer.count >= 2 else { return .needMore }
        guard buffer[0] == Self.version else { return fail(.protocolError("not a SOCKS5 reply (version \(buffer[0]))")) }
        guard buffer[1] == 0 else {
            let reply = SOCKS5Reply(code: buffer[1])
            if let nextHop, reply.meansUnreachable {
                return fail(.unreachable(via: hop.index, status: Int(reply.code), reason: reply.words), naming: nextHop)
            }
            return fail(.socksRefused(reply))
        }
        guard buffer.count >= 5 else { return .needMore }
        let length: Int
        switch buffer[3] {
        case 0x01: length = 4 + 4 + 2
        case 0x03: length = 4 + 1 + Int(buffer[4]) + 2
        case 0x04: length = 4 + 16 + 2
        default: return fail(.protocolError("the SOCKS5 reply has address type X'\(Self.hex(buffer[3]))'"))
        }
        guard buffer.count >= length else { return .needMore }
        let leftover = Array(buffer[length...])
        buffer = []
        state = .done
        return .established(leftover: leftover)
    }

    private mutating func fail(_ cause: RelayError.Cause, naming failed: HopDescription? = nil) -> TunnelHandshakeStep {
        buffer = []
        state = .done
        return .failed(RelayError(hop: failed ?? hop, cause: cause))
    }

    private static func hex(_ byte: UInt8) -> String { byte < 0x10 ? "0" + String(byte, radix: 16, uppercase: true) : String(byte, radix: 16, uppercase: true) }
}

/// A SOCKS5 server's failure reply to CONNECT (RFC 1928 §6, field REP).
package enum SOCKS5Reply: Sendable, Hashable, CustomStringConvertible {
    case generalFailure
    case notAllowedByRuleset
    case networkUnreachable
    case hostUnreachable
    case connectionRefused
    case ttlExpired
    case commandNotSupported
    case addressTypeNotSupported
    /// A code RFC 1928 does not assign (X'09' to X'FF').
    case unassigned(UInt8)

    package init(code: UInt8) {
        let known: [UInt8: SOCKS5Reply] = [1: .generalFailure, 2: .notAllowedByRuleset, 3: .networkUnreachable, 4: .hostUnreachable,
                                           5: .connectionRefused, 6: .ttlExpired, 7: .commandNotSupported, 8: .addressTypeNotSupported]
        self = known[code] ?? .unassigned(code)
    }

    /// The REP byte.
    package var code: UInt8 {
        switch self {
        case .generalFailure: return 1
        case .notAllowedByRuleset: return 2
        case .networkUnreachable: return 3
        case .hostUnreachable: return 4
        case .connectionRefused: return 5
        case .ttlExpired: return 6
        case .commandNotSupported: return 7
        case .addressTypeNotSupported: return 8
        case .unassigned(let code): return code
        }
    }

    /// True when the server could not reach the target (which, behind a later hop, is that hop).
    var meansUnreachable: Bool {
        switch self {
        case .networkUnreachable, .hostUnreachable, .connectionRefused, .ttlExpired: return true
        default: return false
        }
    }

    /// "reply 5 (connection refused)".
    package var description: String { "reply \(code) (\(words))" }

    /// The reply in RFC 1928's words.
    var words: String {
        switch self {
        case .generalFailure: return "general SOCKS server failure"
        case .notAllowedByRuleset: return "connection not allowed by ruleset"
        case .networkUnreachable: return "network unreachable"
        case .hostUnreachable: return "host unreachable"
        case .connectionRefused: return "connection refused"
        case .ttlExpired: return "TTL expired"
        case .commandNotSupported: return "command not supported"
        case .addressTypeNotSupported: return "address type not supported"
        case .unassigned: return "unassigned code"
        }
    }
}
