/// HTTP/1.1 CONNECT (RFC 9110 §9.3.6) as a `TunnelHandshake`: the request with this hop's own
/// header fields, then the relay's answer. The target travels unresolved in the request: the
/// relay, never we, resolves its name.
struct HTTP1ConnectHandshake: TunnelHandshake {
    private let head: [UInt8]
    private let hop: HopDescription
    private let nextHop: HopDescription?
    private var parser = ConnectResponseParser()

    init(authority: String, headers: [(String, String)], hop: HopDescription, nextHop: HopDescription?) {
        head = ConnectRequest.head(authority: authority, headers: headers)
        self.hop = hop
        self.nextHop = nextHop
    }

    /// The answer's `Alt-Svc` field, once it has arrived.
    var altSvc: String? { parser.altSvc }
    /// A 407's `Proxy-Authenticate` values (empty for any other answer).
    var proxyAuthenticate: [String] { parser.proxyAuthenticate }

    func start() -> [UInt8] { head }

    mutating func receive(_ bytes: [UInt8]) -> TunnelHandshakeStep {
        switch parser.feed(bytes) {
        case .needMore: return .needMore
        case .established(_, let leftover): return .established(leftover: leftover)
        case .refused(let status, let reason): return .failed(ConnectRefusal.error(status: status, reason: reason, hop: hop, nextHop: nextHop))
        case .malformed(let why): return .failed(RelayError(hop: hop, cause: .protocolError(why)))
        }
    }
}

/// Opens a tunnel through an HTTP/1.1 relay with CONNECT, then passes bytes on.
typealias HTTP1ConnectLayer = HandshakeLayer<HTTP1ConnectHandshake>

extension HandshakeLayer where Handshake == HTTP1ConnectHandshake {
    /// - Parameters:
    ///   - headers: this hop's own header fields; they are sent on this CONNECT only.
    ///   - nextHop: the relay the tunnel leads to, if any, so that "cannot reach it" names it.
    convenience init(over lower: TransportLayer, targetHost: String, targetPort: UInt16, headers: [(String, String)], hop: HopDescription,
                     nextHop: HopDescription? = nil) {
        self.init(over: lower, handshake: HTTP1ConnectHandshake(authority: ConnectRequest.authority(host: targetHost, port: targetPort),
                                                                headers: headers, hop: hop, nextHop: nextHop), hop: hop)
    }
}

extension HandshakeLayer: ConnectAnswer where Handshake == HTTP1ConnectHandshake {
    var altSvc: String? { handshake.altSvc }
    var proxyAuthenticate: [String] { handshake.proxyAuthenticate }
}
