/// What a local client asked the proxy for, once its handshake is read: where to, as whom, and
/// the bytes that must reach the target first.
package struct ProxyRequest: Sendable, Equatable {
    /// The protocol the client spoke, for the log and for the form of the answer it expects.
    package enum Dialect: Sendable, Equatable {
        case socks5
        /// SOCKS5 UDP ASSOCIATE: the answer names a UDP port of ours; the datagrams sent there
        /// are carried over CONNECT-UDP while the request's connection stays open.
        case socks5Associate
        /// `CONNECT host:port`: the answer is a status line, then the tunnel.
        case httpConnect
        /// An absolute-form request for an `http://` URL: no answer of ours on success, the
        /// origin's response is the answer.
        case httpForward
    }

    package var dialect: Dialect
    /// The target as the client named it: a host name travels to the last relay as a name.
    package var host: String
    package var port: UInt16
    /// The username the client authenticated with (nil: none), which picks its isolated session.
    package var identity: String?
    /// Bytes for the target before anything else the client sends: what the client pipelined
    /// after its handshake, or the rewritten head of a forwarded request.
    package var firstBytes: [UInt8]

    package init(dialect: Dialect, host: String, port: UInt16, identity: String?, firstBytes: [UInt8]) {
        self.dialect = dialect
        self.host = host
        self.port = port
        self.identity = identity
        self.firstBytes = firstBytes
    }
}

/// Why a request is not carried, in the terms both protocols can answer with.
package enum ProxyRefusal: Sendable, Equatable {
    /// Our rules say no (the host is not covered by a relay, or the client is not allowed).
    case notAllowed
    /// The last relay could not reach the target (no such host, no route).
    case hostUnreachable
    /// The target refused the connection.
    case connectionRefused
    /// No relay of the chain could be reached.
    case relayUnreachable
    /// Setting up the tunnel took too long.
    case timedOut
    /// The request cannot be carried at all (UDP without a chain that carries it).
    case unsupported
    /// Anything else that went wrong.
    case generalFailure
}

/// One step of a handshake state machine: bytes to send the client now, then what follows.
package struct ProxyHandshakeStep: Sendable, Equatable {
    package enum Next: Sendable, Equatable {
        /// Wait for more bytes from the client.
        case wait
        /// The handshake is complete: open a tunnel for the request.
        case open(ProxyRequest)
        /// Close the connection once `reply` is sent.
        case close
    }

    package var reply: [UInt8]
    package var next: Next

    package init(reply: [UInt8] = [], next: Next) {
        self.reply = reply
        self.next = next
    }
}
