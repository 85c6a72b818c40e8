#if canImport(Glibc)
import Glibc
#endif

/// How a target named by a local client is checked and written, the same for SOCKS5 and HTTP:
/// a host name (kept as a name), an IPv4 literal or a bare IPv6 literal.
package enum TargetHost {
    /// Whether `byte` may appear in a host name a relay is asked for: letters, digits, `-`, `.`,
    /// `_`, and `:` for IPv6 literals. Anything else (spaces, CR/LF, `@`, `/`) could change the
    /// meaning of the CONNECT request the relay gets.
    package static func allows(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"): return true
        default: return false
        }
    }

    /// Sixteen address bytes as an IPv6 address in its shortest text form.
    package static func ipv6(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `host:port`, `[v6]:port` or (with `defaultPort`) a host alone, as in an HTTP authority;
    /// nil when the host has bytes `allows` refuses, is empty, or the port is not a number.
    package static func authority(_ text: Substring, defaultPort: UInt16?) -> (host: String, port: UInt16)? {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard host.contains(":") else { return nil }
        } else {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy(allows) else { return nil }
        let port: UInt16
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let number = UInt16(portText), number > 0 else { return nil }
            port = number
        } else {
            guard let defaultPort else { return nil }
            port = defaultPort
        }
        return (host.lowercased(), port)
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (not a name).
    package static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The address bytes of an IPv4 (4) or IPv6 (16) literal; nil for a name.
    package static func addressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
