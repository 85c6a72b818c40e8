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
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty else { return nil }
        var text = scheme + "://"
        if let user = components.percentEncodedUser {
            text += Self.normalizedEscapes(user, allowing: Self.userInfoCharacters)
            if let password = components.percentEncodedPassword { text += ":" + Self.normalizedEscapes(password, allowing: Self.userInfoCharacters) }
            text += "@"
        }
        var host = rawHost.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        text += host
        if let port = components.port, port != (scheme == "https" ? 443 : 80) { text += ":\(port)" }
        let path = Self.removingDotSegments(Self.normalizedEscapes(components.percentEncodedPath, allowing: Self.pathCharacters))
        text += path.isEmpty ? "/" : path
        if let query = components.percentEncodedQuery {
            let kept = query.split(separator: "&", omittingEmptySubsequences: true).filter { pair in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                return !strippedQueryParameters.contains(name.removingPercentEncoding ?? name)
            }
            if !kept.isEmpty {
                text += "?" + kept.map { Self.normalizedEscapes(String($0), allowing: Self.queryCharacters) }.joined(separator: "&")
            }
        }
        return URL(string: text)
    }

    // RFC 3986: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let subDelimiters = Set("!$&'()*+,;=".utf8)
    private static let userInfoCharacters = unreserved.union(subDelimiters).union(":".utf8)
    private static let pathCharacters = unreserved.union(subDelimiters).union(":@/".utf8)
    private static let queryCharacters = pathCharacters.union("?".utf8)

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
}
