/// Why bytes could not be read or written in a wire format. Each protocol module turns this into
/// its own error, naming the field it was reading (written once per module).
@usableFromInline
package enum WireFormatError: Error, Hashable, Sendable {
    /// A read needed `needed` bytes where only `remaining` were left (`needed` may be negative
    /// when a count from the wire was converted without a check: still too few).
    case truncated(needed: Int, remaining: Int)
    /// A value above 2^62 - 1 has no QUIC variable-length encoding.
    case varintOutOfRange(UInt64)
}
