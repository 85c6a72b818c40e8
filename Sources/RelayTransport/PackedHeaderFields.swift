/// Calls `body` with every name and value of `fields` packed into one buffer and, per field, the
/// ranges of its name and value there. For C libraries that take arrays of pointer and length
/// pairs (nghttp2_nv, nghttp3_nv) and copy them during the call: every pointer `body` makes from
/// `base` is valid until it returns, and none escapes a `withUnsafe` call.
func withPackedHeaderFields<R>(_ fields: [([UInt8], [UInt8])],
                               _ body: (_ base: UnsafeMutablePointer<UInt8>, _ spans: [(name: Range<Int>, value: Range<Int>)]) -> R) -> R {
    var bytes: [UInt8] = []
    var spans: [(name: Range<Int>, value: Range<Int>)] = []
    for (name, value) in fields {
        let nameStart = bytes.count
        bytes += name
        let valueStart = bytes.count
        bytes += value
        spans.append((nameStart..<valueStart, valueStart..<bytes.count))
    }
    bytes.append(0)  // never empty, so the buffer has a base address
    return bytes.withUnsafeMutableBufferPointer { storage in body(storage.baseAddress!, spans) }
}
