import HTTPCore

/// Parses a relay's answer to an HTTP/1.1 CONNECT (RFC 9110 §9.3.6): bytes in, a verdict out.
/// No I/O, so it is tested on its own.
struct ConnectResponseParser {
    enum Verdict: Equatable {
        /// More bytes are needed.
        case needMore
        /// 2xx: the tunnel is open; `leftover` are the first tunnelled bytes, if any arrived.
        case established(status: Int, leftover: [UInt8])
        /// Any other final status.
        case refused(status: Int, reason: String)
        case malformed(String)
    }

    /// Larger response heads are refused rather than buffered.
    static let maxHeadSize = 64 * 1024
    private var buffer: [UInt8] = []
    /// Where the search for the head's end resumes: no CRLFCRLF starts before it. Searching from
    /// the start at every read cost a relay sending its head a byte per read 64 KiB x 32 KiB
    /// steps (207 s in the fuzz harness's build).
    private var searchedUpTo = 0
    /// The final answer's `Alt-Svc` field, once established.
    private(set) var altSvc: String?
    /// A 407's `Proxy-Authenticate` values, in order: the challenges a responder may answer.
    private(set) var proxyAuthenticate: [String] = []

    mutating func feed(_ bytes: [UInt8]) -> Verdict {
        buffer.append(contentsOf: bytes)
        while true {
            guard let end = Self.endOfHead(in: buffer, from: searchedUpTo) else {
                searchedUpTo = max(0, buffer.count - 3)
                return buffer.count > Self.maxHeadSize ? .malformed("response head larger than 64 KiB") : .needMore
            }
            // The same limit when a large head arrives in one read.
            guard end <= Self.maxHeadSize else { return .malformed("response head larger than 64 KiB") }
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            let rest = Array(buffer[(end + 4)...])
            let statusLine = head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            // The shared parser (three digits, 100...599), then CONNECT's own rule: an HTTP/1.x answer.
            guard let parsed = StatusLine(statusLine), parsed.version.hasPrefix("HTTP/1.") else {
                return .malformed("bad status line \"\(statusLine.prefix(80))\"")
            }
            let (status, reason) = (parsed.status, parsed.reason)
            if (100..<200).contains(status) {
                buffer = rest  // interim response: skip it and wait for the final one
                searchedUpTo = 0
                continue
            }
            if (200..<300).contains(status) {
                altSvc = head.split(separator: "\r\n").dropFirst().first { $0.lowercased().hasPrefix("alt-svc:") }
                    .map { String($0.dropFirst("alt-svc:".count)).trimmingCharacters(in: .whitespaces) }
                return .established(status: status, leftover: rest)
            }
            if status == 407 {
                proxyAuthenticate = head.split(separator: "\r\n").dropFirst().filter { $0.lowercased().hasPrefix("proxy-authenticate:") }
                    .map { String($0.dropFirst("proxy-authenticate:".count)).trimmingCharacters(in: .whitespaces) }
            }
            return .refused(status: status, reason: reason)
        }
    }

    private static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4, start <= bytes.count - 4 else { return nil }
        for index in start...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// Writes the CONNECT request head for `authority` with the hop's own extra header fields.
enum ConnectRequest {
    static func head(authority: String, headers: [(String, String)]) -> [UInt8] {
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// "host:port", with IPv6 literals in brackets (authority-form, RFC 9110 §7.2).
    static func authority(host: String, port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
