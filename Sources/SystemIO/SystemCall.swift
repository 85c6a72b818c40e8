#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the call's name and the errno it left.
package struct SystemError: Error, CustomStringConvertible, Sendable {
    package let call: String
    package let code: Int32

    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    package var description: String { "\(call): \(String(cString: strerror(code)))" }

    /// True when a non-blocking call would have blocked.
    package var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

/// The one place that reads errno: runs `body`, retries on EINTR and turns -1 into a `SystemError`.
/// Every module's system calls go through it (or the helpers below), never a loop of their own.
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

/// One read or send on a non-blocking descriptor: what `body` returned (0: the peer's end of
/// stream, for a read), or nil when the call would block.
package func nonBlockingCall(_ name: String, _ body: () -> Int) throws(SystemError) -> Int? {
    do {
        return try systemCall(name, body)
    } catch where error.wouldBlock {
        return nil
    }
}

/// Writes all of `buffer` to `fd` (at `position` with pwrite, else at the file offset), again
/// after a short write; a write of nothing fails as EIO (it would never finish).
package func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at position: Int? = nil) throws(SystemError) {
    guard let base = buffer.baseAddress else { return }
    var written = 0
    while written < buffer.count {
        let count = try systemCall(position == nil ? "write" : "pwrite") {
            if let position { return pwrite(fd, base + written, buffer.count - written, off_t(position + written)) }
            return write(fd, base + written, buffer.count - written)
        }
        guard count > 0 else { throw SystemError(call: "write", code: EIO) }
        written += count
    }
}
