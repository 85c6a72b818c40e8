import Foundation

/// The server side of an HTTP proxy request head, without any I/O: `receive(_:)` collects the
/// head (at most `maximumHeadBytes`), checks `Proxy-Authorization: Basic` when credentials are
/// required, and says to open a tunnel for `CONNECT host:port`, or for an absolute-form request
/// to an `http://` URL, whose head is rewritten to origin form (proxy headers removed,
/// `Connection: close`, so each client connection carries one request to one origin).
package struct HTTPProxyRequestParser: Sendable {
    package static let maximumHeadBytes = 16 * 1024

    private var buffer: [UInt8] = []
    private var done = false
    private let credentials: ProxyCredentials

    package init(credentials: ProxyCredentials) {
        self.credentials = credentials
    }

    /// Takes bytes from the client; once the head is read (open or refused) it takes nothing more.
    package mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        guard !done else { return ProxyHandshakeStep(next: .wait) }
        buffer += bytes
        guard let end = Self.headEnd(in: buffer) else {
            if buffer.count > Self.maximumHeadBytes { return finish(Self.response(431, "Request Header Fields Too Large")) }
            return ProxyHandshakeStep(next: .wait)
        }
        guard end <= Self.maximumHeadBytes else { return finish(Self.response(431, "Request Header Fields Too Large")) }
        let head = buffer[..<end]
        let rest = Array(buffer[(end + 4)...])
        done = true
        buffer = []
        guard let text = String(validating: head, as: UTF8.self) else { return finish(Self.response(400, "Bad Request")) }
        return parse(text, rest: rest)
    }

    /// The answer to a refused request, or (nil) the `200` that opens a CONNECT tunnel.
    package static func reply(_ refusal: ProxyRefusal?) -> [UInt8] {
        switch refusal {
        case nil: return Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
        case .notAllowed: return response(403, "Forbidden", "the relay rules do not allow this host")
        case .hostUnreachable: return response(502, "Bad Gateway", "the last relay could not reach the host")
        case .connectionRefused: return response(502, "Bad Gateway", "the host refused the connection")
        case .relayUnreachable: return response(502, "Bad Gateway", "no relay of the chain could be reached")
        case .timedOut: return response(504, "Gateway Timeout", "the relay chain did not open a tunnel in time")
        case .unsupported: return response(501, "Not Implemented", "the relay chain cannot carry this request")
        case .generalFailure: return response(502, "Bad Gateway", "the relay chain failed")
        }
    }

    private mutating func finish(_ reply: [UInt8]) -> ProxyHandshakeStep {
        done = true
        buffer = []
        return ProxyHandshakeStep(reply: reply, next: .close)
    }

    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func parse(_ head: String, rest: [UInt8]) -> ProxyHandshakeStep {
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter }) else {
            return ProxyHandshakeStep(reply: Self.response(400, "Bad Request"), next: .close)
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(" "), !line.hasPrefix("\t") else {
                return ProxyHandshakeStep(reply: Self.response(400, "Bad Request"), next: .close)
            }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let identity: String?
        switch authenticate(fields) {
        case .refused: return ProxyHandshakeStep(reply: Self.authenticationRequired, next: .close)
        case .accepted(let name): identity = name
        }
        let method = String(parts[0])
        if method == "CONNECT" {
            guard let (host, port) = TargetHost.authority(parts[1], defaultPort: nil) else {
                return ProxyHandshakeStep(reply: Self.response(400, "Bad Request"), next: .close)
            }
            return ProxyHandshakeStep(next: .open(ProxyRequest(dialect: .httpConnect, host: host, port: port, identity: identity, firstBytes: rest)))
        }
        return forward(method: method, target: parts[1], version: parts[2], fields: fields, identity: identity, rest: rest)
    }

    /// An absolute-form `http://` request, rewritten for the origin.
    private func forward(method: String, target: Substring, version: Substring, fields: [(name: String, value: String)],
                         identity: String?, rest: [UInt8]) -> ProxyHandshakeStep {
        guard target.lowercased().hasPrefix("http://") else {
            // https:// in absolute form would need us to speak TLS to the origin: clients use CONNECT.
            return ProxyHandshakeStep(reply: Self.response(501, "Not Implemented", "only CONNECT and http:// URLs are proxied"), next: .close)
        }
        let afterScheme = target.dropFirst(7)
        let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        var authority = afterScheme[..<pathStart]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }  // userinfo is never sent on
        guard let (host, port) = TargetHost.authority(authority, defaultPort: 80) else {
            return ProxyHandshakeStep(reply: Self.response(400, "Bad Request"), next: .close)
        }
        var path = String(afterScheme[pathStart...].prefix { $0 != "#" })
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        // Proxy-* fields are addressed to us (the login among them), never to the origin;
        // Connection and Keep-Alive are this hop's, and ours is "close".
        let dropped: Set<String> = ["connection", "keep-alive"]
        var head = "\(method) \(path) \(version)\r\n"
        var hasHost = false
        for field in fields where !dropped.contains(field.name.lowercased()) && !field.name.lowercased().hasPrefix("proxy-") {
            hasHost = hasHost || field.name.lowercased() == "host"
            head += "\(field.name): \(field.value)\r\n"
        }
        if !hasHost { head += "Host: \(authority)\r\n" }
        head += "Connection: close\r\n\r\n"
        return ProxyHandshakeStep(next: .open(ProxyRequest(dialect: .httpForward, host: host, port: port, identity: identity,
                                                           firstBytes: Array(head.utf8) + rest)))
    }

    private enum Authentication { case accepted(String?), refused }

    private func authenticate(_ fields: [(name: String, value: String)]) -> Authentication {
        guard credentials.required else { return .accepted(nil) }
        guard let value = fields.first(where: { $0.name.lowercased() == "proxy-authorization" })?.value,
              value.count > 6, value.prefix(6).lowercased() == "basic ",
              let decoded = Data(base64Encoded: String(value.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return .refused }
        let name = String(decoding: decoded[..<colon], as: UTF8.self)
        let password = Array(decoded[(colon + 1)...])
        return credentials.accepts(username: name, password: password) ? .accepted(name) : .refused
    }

    private static let authenticationRequired = Array(("HTTP/1.1 407 Proxy Authentication Required\r\n"
        + "Proxy-Authenticate: Basic realm=\"relayfetch\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").utf8)

    private static func response(_ status: Int, _ reason: String, _ body: String = "") -> [UInt8] {
        let text = body.isEmpty ? "" : "relayfetch proxy: \(body)\n"
        return Array(("HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain\r\nContent-Length: \(text.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + text).utf8)
    }
}
