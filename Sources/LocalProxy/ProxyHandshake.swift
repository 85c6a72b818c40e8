/// A local client's handshake, SOCKS5 or HTTP, told apart by its first byte (SOCKS5 starts with
/// version 5, an HTTP request with a method's letter), so both are served on one port. I/O-free,
/// like the two machines it hands the bytes to.
package struct ProxyHandshake: Sendable {
    private enum State: Sendable {
        case undecided
        case socks(SOCKS5ServerHandshake)
        case http(HTTPProxyRequestParser)
        case refused
    }

    private var state = State.undecided
    private let credentials: ProxyCredentials

    package init(credentials: ProxyCredentials) {
        self.credentials = credentials
    }

    /// The dialect picked so far (nil before the first byte), for the form of a later answer.
    package var isSOCKS: Bool? {
        switch state {
        case .undecided, .refused: return nil
        case .socks: return true
        case .http: return false
        }
    }

    package mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        switch state {
        case .undecided:
            guard let first = bytes.first else { return ProxyHandshakeStep(next: .wait) }
            if first == SOCKS5ServerHandshake.version {
                state = .socks(SOCKS5ServerHandshake(credentials: credentials))
            } else if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
                state = .http(HTTPProxyRequestParser(credentials: credentials))
            } else {
                state = .refused  // SOCKS4 or noise: nothing we could answer it in
                return ProxyHandshakeStep(next: .close)
            }
            return receive(bytes)
        case .socks(var machine):
            let step = machine.receive(bytes)
            state = .socks(machine)
            return step
        case .http(var machine):
            let step = machine.receive(bytes)
            state = .http(machine)
            return step
        case .refused:
            return ProxyHandshakeStep(next: .wait)
        }
    }

    /// The answer once the tunnel is open (nil refusal) or refused, in the client's dialect;
    /// nothing for a forwarded `http://` request that opened (the origin answers it).
    package static func answer(for request: ProxyRequest, _ refusal: ProxyRefusal?) -> [UInt8] {
        switch request.dialect {
        case .socks5, .socks5Associate: return SOCKS5ServerHandshake.reply(refusal)
        case .httpConnect: return HTTPProxyRequestParser.reply(refusal)
        case .httpForward: return refusal == nil ? [] : HTTPProxyRequestParser.reply(refusal)
        }
    }
}
