#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Resolves the names relayfetch dials itself (a first relay's host) in place of the system's
/// resolver, e.g. over DNS-over-HTTPS. A session that requires encrypted resolution gives its
/// chain builder one; a failure is then an error, never a fall back to plain DNS.
package protocol HostResolver: AnyObject, Sendable {
    /// Calls `completion` once, on any thread, with socket addresses (sockaddr_in/sockaddr_in6
    /// bytes, port set) for `host`, or why there are none.
    func resolve(host: String, port: UInt16, completion: @escaping @Sendable (Result<[Data], ResolveFailure>) -> Void)

    /// Looks up `host`'s addresses (kept for `resolve`) and its HTTPS record (RFC 9460): nil
    /// when it has none (or no answer came), a failure when it has no addresses. Calls
    /// `completion` once, on any thread.
    func serviceHint(host: String, completion: @escaping @Sendable (Result<HTTP3Hint?, ResolveFailure>) -> Void)
}

extension HostResolver {
    package func serviceHint(host: String, completion: @escaping @Sendable (Result<HTTP3Hint?, ResolveFailure>) -> Void) {
        completion(.success(nil))
    }
}

/// What a relay's HTTPS record says about HTTP/3.
package struct HTTP3Hint: Sendable, Equatable {
    /// True when its ALPN list has h3; false: QUIC is not tried.
    package var offersHTTP3: Bool
    /// The record's `port`, where the service (HTTP/3 included) is.
    package var port: UInt16?
    package init(offersHTTP3: Bool, port: UInt16? = nil) {
        self.offersHTTP3 = offersHTTP3
        self.port = port
    }
}

/// A relay host name that did not resolve.
package struct ResolveFailure: Error, Sendable {
    package let reason: String
    package init(reason: String) { self.reason = reason }
}

/// How a layer turns a relay's host name into addresses: through the session's `HostResolver`
/// when it has one, else with getaddrinfo off the loop (it blocks). IP literals need neither.
enum AddressLookup {
    static func resolve(host: String, port: UInt16, resolver: HostResolver?, loop: EventLoop,
                        completion: @escaping (Result<[Data], ResolveFailure>) -> Void) {
        if let literal = SocketAddress.literal(host, port: port) {
            loop.execute { completion(.success([literal])) }
            return
        }
        // The completion belongs to the loop: whichever thread answers hands the result back there.
        let answer = loop.hopping(completion)
        if let resolver {
            resolver.resolve(host: host, port: port, completion: answer)
            return
        }
        DispatchQueue.global().async { answer(systemResolve(host: host, port: port)) }
    }

    /// getaddrinfo: the system resolver (plain DNS, /etc/hosts).
    static func systemResolve(host: String, port: UInt16) -> Result<[Data], ResolveFailure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(ResolveFailure(reason: "\(host): \(String(cString: gai_strerror(rc)))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [Data] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            addresses.append(Data(bytes: entry.pointee.ai_addr, count: Int(entry.pointee.ai_addrlen)))
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(ResolveFailure(reason: "\(host): no addresses")) : .success(addresses)
    }
}

/// sockaddr bytes for IP addresses, made without any lookup.
package enum SocketAddress {
    /// The system resolver's addresses for `host` (getaddrinfo: plain DNS, /etc/hosts). Blocks.
    package static func systemAddresses(host: String, port: UInt16) -> Result<[Data], ResolveFailure> {
        AddressLookup.systemResolve(host: host, port: port)
    }

    /// A sockaddr_in or sockaddr_in6 for `text` when it is an IPv4 or IPv6 literal; nil otherwise.
    package static func literal(_ text: String, port: UInt16) -> Data? {
        guard let bytes = literalBytes(text) else { return nil }
        return bytes.count == 4 ? ipv4(bytes, port: port) : ipv6(bytes, port: port)
    }

    /// The 4 (IPv4) or 16 (IPv6, brackets optional) address bytes of an IP literal, network
    /// order; nil for a name. Parses only: nothing is looked up.
    package static func literalBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// sockaddr_in for 4 address bytes (network order).
    package static func ipv4(_ bytes: [UInt8], port: UInt16) -> Data {
        socketAddress(sockaddr_in()) {
            $0.sin_family = sa_family_t(AF_INET)
            $0.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &$0.sin_addr) { $0.copyBytes(from: bytes.prefix(4)) }
        }
    }

    /// sockaddr_in6 for 16 address bytes.
    package static func ipv6(_ bytes: [UInt8], port: UInt16) -> Data {
        socketAddress(sockaddr_in6()) {
            $0.sin6_family = sa_family_t(AF_INET6)
            $0.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &$0.sin6_addr) { $0.copyBytes(from: bytes.prefix(16)) }
        }
    }

    /// The bytes of `empty` (a sockaddr_in or sockaddr_in6) once `fill` set its fields.
    private static func socketAddress<Address>(_ empty: Address, _ fill: (inout Address) -> Void) -> Data {
        var address = empty
        fill(&address)
        return withUnsafeBytes(of: address) { Data($0) }
    }

    /// The address of a sockaddr as text ("127.0.0.11", "::1").
    package static func text(of address: Data) -> String {
        address.withUnsafeBytes { raw -> String in
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            let family = Int32(raw.load(as: sockaddr.self).sa_family)
            if family == AF_INET {
                var v4 = raw.load(as: sockaddr_in.self).sin_addr
                inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
            } else if family == AF_INET6 {
                var v6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
            }
            return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        }
    }
}
