#if canImport(Glibc)
import Glibc
#endif

/// A socket on a loopback address that never answers: a TCP listener that accepts nothing, or a
/// UDP port that reads nothing (a relay whose packets vanish). Port chosen by the kernel.
public final class SilentSocket {
    public enum Kind { case tcp, udp }

    public let port: UInt16
    private let fd: Int32

    public init(_ kind: Kind, host: String) throws {
        let fd = socket(AF_INET, Int32(kind == .tcp ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, host, &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && (kind == .udp || listen(fd, 8) == 0) && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw TestServerError(description: "cannot bind a \(kind) socket on \(host)")
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    public func close() { _ = Glibc.close(fd) }
}
