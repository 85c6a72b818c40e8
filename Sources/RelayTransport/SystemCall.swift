#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the call's name and the errno it left.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let code: Int32

    public var description: String { "\(call): \(String(cString: strerror(code)))" }

    /// True when a non-blocking call would have blocked.
    var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

/// The one place that reads errno: runs `body`, retries on EINTR and turns -1 into a `SystemError`.
/// Package-wide, so other modules' system calls (the offline copy, the token file) use it too.
@discardableResult
package func systemCall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(call: name, code: code)
    }
}
