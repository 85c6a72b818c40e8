internal import COpenSSL

extension ObliviousHTTPError {
    /// `.cryptoFailure` naming the OpenSSL call that failed and the first queued OpenSSL error.
    /// Drains the error queue so a later failure does not report this one.
    static func openSSL(_ call: String) -> ObliviousHTTPError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return ObliviousHTTPError(.cryptoFailure, "\(call) failed") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ObliviousHTTPError(.cryptoFailure, "\(call) failed: \(text)")
    }
}
