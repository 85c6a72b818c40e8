import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One blocking HTTP/1.1 exchange over a loopback TCP connection, optionally after a CONNECT
/// through a plain relay port: what the tests need to see a 407's fields, and to reach the
/// issuer through relay B the way a client's issuance request would travel.
struct LoopbackHTTP {
    struct Response {
        let status: Int
        let fields: [(String, String)]
        let body: [UInt8]

        func values(_ name: String) -> [String] { fields.filter { $0.0.lowercased() == name }.map(\.1) }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32

    init(host: String, port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            _ = Glibc.close(fd)
            throw Failure(description: "connect to \(host):\(port) failed")
        }
    }

    func close() { _ = Glibc.close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed") }
            offset += sent
        }
    }

    /// Reads one response; the body by Content-Length (none for a CONNECT's 2xx).
    func readResponse(bodyAllowed: Bool = true) throws -> Response {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            let count = recv(fd, &buffer, 1, 0)  // a byte at a time: nothing past the head is consumed
            guard count > 0 else { throw Failure(description: "the connection ended before a response head") }
            data.append(buffer[0])
            if data.count >= 4, Array(data.suffix(4)) == separator { headEnd = data.count }
        }
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Failure(description: "no status line in \(lines)")
        }
        let fields = lines.dropFirst().map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]).trimmingCharacters(in: .whitespaces), parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : "")
        }
        let length = bodyAllowed ? fields.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0 : 0
        var body: [UInt8] = []
        while body.count < length {
            let count = recv(fd, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { throw Failure(description: "the body ended early") }
            body += buffer.prefix(count)
        }
        return Response(status: status, fields: fields, body: body)
    }

    /// A request to `origin` (host:port, plain HTTP) sent through relay B's plain port, so the
    /// server sees relay B's address, never ours.
    static func throughRelayB(to origin: String, method: String, path: String, fields: [String: String] = [:], body: [UInt8] = [])
        throws -> Response {
        let connection = try LoopbackHTTP(host: "127.0.0.12", port: 3128)
        defer { connection.close() }
        try connection.send(Array("CONNECT \(origin) HTTP/1.1\r\nHost: \(origin)\r\nProxy-Authorization: Bearer relay-token-B\r\n\r\n".utf8))
        let tunnel = try connection.readResponse(bodyAllowed: false)
        guard tunnel.status == 200 else { throw Failure(description: "relay B answered \(tunnel.status) to CONNECT \(origin)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(origin)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        try connection.send(Array((head + "\r\n").utf8) + body)
        return try connection.readResponse()
    }
}
