import Foundation

/// Turns the many spellings of one URL into one, so the seen set holds each page once: scheme
/// and host in lower case, the default port dropped, dot segments removed (RFC 3986 5.2.4),
/// percent-encoding normalized (unreserved characters decoded, other escapes in upper case,
/// stray bytes encoded), the fragment dropped, and chosen query parameters removed.
public struct URLCanonicalizer: Sendable {
    /// Query parameters removed (names compared exactly, e.g. `utm_source`).
    public var strippedQueryParameters: Set<String>

    public init(strippedQueryParameters: Set<String> = []) {
        self.strippedQueryParameters = strippedQueryParameters
    }

    /// The canonical form of `url`, or nil for anything but an http(s) URL with a host.
    public func canonical(_ url: URL) -> URL? {
        canonical(url.absoluteString, relativeTo: nil).flatMap { URL(string: $0.url) }
    }

    /// The canonical form of the link `reference` (as written in a page) resolved against
    /// `base` (an absolute URL), and its host (lower case, without brackets); nil for anything
    /// but an http(s) URL with a host. All on text: no `URL` is built.
    func canonical(_ reference: String, relativeTo base: String?) -> (url: String, host: String)? {
        var target = URLReference(reference)
        if target.scheme == nil {
            guard let base else { return nil }
            let baseReference = URLReference(base)
            guard baseReference.scheme != nil else { return nil }
            target = target.resolved(against: baseReference)
        }
        return canonical(target)
    }

    /// The canonical text of an absolute reference, with its host.
    func canonical(_ parts: URLReference) -> (url: String, host: String)? {
        guard let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https", let authority = parts.authority,
              let (userInfo, rawHost, port) = Self.splitAuthority(authority) else { return nil }
        var host = rawHost.lowercased()
        // Every final dot: with one removed, "//../" gave host "." here and none when read again.
        while host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        var text = scheme + "://"
        if let userInfo { text += Self.normalizedEscapes(String(userInfo), allowing: Self.userInfoCharacters) + "@" }
        text += host
        if let port, port != (scheme == "https" ? 443 : 80) { text += ":\(port)" }
        let path = Self.removingDotSegments(Self.normalizedEscapes(String(parts.path), allowing: Self.pathCharacters))
        text += path.isEmpty ? "/" : path
        if let query = parts.query {
            let kept = query.split(separator: "&", omittingEmptySubsequences: true).filter { pair in
                guard !strippedQueryParameters.isEmpty else { return true }
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                return !strippedQueryParameters.contains(name.contains("%") ? name.removingPercentEncoding ?? name : name)
            }
            if !kept.isEmpty {
                text += "?" + kept.map { Self.normalizedEscapes(String($0), allowing: Self.queryCharacters) }.joined(separator: "&")
            }
        }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (text, bareHost)
    }

    /// [userinfo@]host[:port], the host checked (registered-name characters and escapes, or an
    /// IP literal in brackets); nil when it is malformed. An empty port counts as none.
    private static func splitAuthority(_ authority: Substring) -> (userInfo: Substring?, host: Substring, port: Int?)? {
        var hostAndPort = authority
        var userInfo: Substring?
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
        }
        let host: Substring, portText: Substring?
        if hostAndPort.utf8.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = hostAndPort[...close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            guard after.isEmpty || after.utf8.first == UInt8(ascii: ":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard host.utf8.dropFirst().dropLast().allSatisfy({ ipLiteralCharacters.contains($0) }) else { return nil }
        } else {
            if let colon = hostAndPort.utf8.lastIndex(of: UInt8(ascii: ":")) {
                host = hostAndPort[..<colon]
                portText = hostAndPort[hostAndPort.index(after: colon)...]
            } else {
                (host, portText) = (hostAndPort, nil)
            }
            guard host.utf8.allSatisfy({ hostCharacters.contains($0) }) else { return nil }
        }
        guard let portText, !portText.isEmpty else { return (userInfo, host, nil) }
        guard portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let port = Int(portText), port <= 65535 else { return nil }
        return (userInfo, host, port)
    }

    // RFC 3986: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let subDelimiters = Set("!$&'()*+,;=".utf8)
    private static let userInfoCharacters = unreserved.union(subDelimiters).union(":".utf8)
    private static let pathCharacters = unreserved.union(subDelimiters).union(":@/".utf8)
    private static let queryCharacters = pathCharacters.union("?".utf8)
    private static let hostCharacters = unreserved.union(subDelimiters).union("%".utf8)
    private static let ipLiteralCharacters = Set("0123456789abcdefABCDEF:.".utf8).union(unreserved)

    /// Decodes escapes of unreserved characters, upper-cases the hex of the others, and encodes
    /// any byte the component does not allow as it stands (including a '%' that starts no escape).
    static func normalizedEscapes(_ text: String, allowing allowed: Set<UInt8>) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        func escape(_ byte: UInt8) {
            let hex = Array("0123456789ABCDEF".utf8)
            output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let decoded = high << 4 | low
                if unreserved.contains(decoded) { output.append(decoded) } else { escape(decoded) }
                index += 3
                continue
            }
            if allowed.contains(byte) { output.append(byte) } else { escape(byte) }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// RFC 3986 section 5.2.4, on an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        guard hasDotSegment(path) else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") { input = input.dropFirst(3) }
            else if input.hasPrefix("./") { input = input.dropFirst(2) }
            else if input.hasPrefix("/./") { input = input.dropFirst(2) }
            else if input == "/." { input = "/" }
            else if input.hasPrefix("/../") { input = input.dropFirst(3); if !output.isEmpty { output.removeLast() } }
            else if input == "/.." { input = "/"; if !output.isEmpty { output.removeLast() } }
            else if input == "." || input == ".." { input = "" }
            else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    /// Whether a segment of `path` is "." or "..": most paths have none, and need no rewriting.
    private static func hasDotSegment(_ path: String) -> Bool {
        var segmentLength = 0, dots = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0 && segmentLength == dots && dots <= 2 { return true }
                segmentLength = 0
                dots = 0
            } else {
                segmentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return segmentLength > 0 && segmentLength == dots && dots <= 2
    }
}
