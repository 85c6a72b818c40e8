/// How a Binary HTTP message frames its sections (RFC 9292 Section 3.2 and 3.3).
public enum BinaryHTTPFraming: Sendable, Hashable {
    /// Every field section and the content carry a length prefix.
    case knownLength
    /// Field sections end with a zero and content comes in length-prefixed chunks, so a message
    /// can be written before its size is known.
    case indeterminateLength

    /// The framing indicator for a request or response with this framing.
    func indicator(isRequest: Bool) -> UInt64 {
        switch (self, isRequest) {
        case (.knownLength, true): return 0
        case (.knownLength, false): return 1
        case (.indeterminateLength, true): return 2
        case (.indeterminateLength, false): return 3
        }
    }
}
