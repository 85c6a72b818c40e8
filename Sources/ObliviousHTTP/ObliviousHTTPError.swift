/// A failure anywhere in this module: Binary HTTP decoding, key configurations, HPKE or the
/// encapsulation of requests and responses. `code` names the cause; `detail` says where.
public struct ObliviousHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why an operation failed.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Binary HTTP (RFC 9292)
        /// The input ended inside a message part, or a length points past the end.
        case truncated
        /// The framing indicator is not one of 0...3, or names the other message kind.
        case invalidFramingIndicator
        /// A status code outside 100...599, or an informational one where a final one is due.
        case invalidStatus
        /// A field name that is empty, not lowercase `tchar`s, or a misplaced pseudo-field.
        case invalidFieldName
        /// A field value with NUL, CR or LF, or with leading or trailing whitespace.
        case invalidFieldValue
        /// A method, scheme, authority or path with characters HTTP does not allow there.
        case invalidControlData
        /// Padding that is not all zero bytes.
        case invalidPadding
        /// Framing that contradicts itself, such as a field line running past its section.
        case malformedMessage
        /// A message part exceeds a configured decoding limit.
        case limitExceeded

        // Key configurations and Oblivious HTTP (RFC 9458)
        /// A key configuration (or list of them) that does not parse.
        case invalidKeyConfiguration
        /// An encapsulated request names a key identifier the gateway does not have.
        case unknownKeyID
        /// A KEM identifier this implementation does not support.
        case unsupportedKEM
        /// A KDF identifier this implementation, or the key configuration, does not support.
        case unsupportedKDF
        /// An AEAD identifier this implementation, or the key configuration, does not support.
        case unsupportedAEAD
        /// A ciphertext failed authentication; no plaintext was released.
        case authenticationFailed

        // HPKE (RFC 9180)
        /// A public or private key of the wrong length, or one giving an all-zero shared secret.
        case invalidKey
        /// A requested output length (an export, a nonce) that the algorithms cannot produce.
        case invalidLength
        /// The context's sequence number is exhausted; no more messages can be sealed or opened.
        case messageLimitReached
        /// OpenSSL reported an internal failure.
        case cryptoFailure
    }

    /// The cause.
    public let code: Code
    /// A sentence naming what was wrong and where.
    public let detail: String

    /// An error with its cause and a sentence on where it arose.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// "code: detail".
    public var description: String { "\(code.rawValue): \(detail)" }
}

extension ObliviousHTTPError {
    static func unsupported(kemID: UInt16) -> ObliviousHTTPError {
        ObliviousHTTPError(.unsupportedKEM, "KEM 0x\(kemID.hex4) is not supported")
    }

    static func unsupported(kdfID: UInt16) -> ObliviousHTTPError {
        ObliviousHTTPError(.unsupportedKDF, "KDF 0x\(kdfID.hex4) is not supported")
    }

    static func unsupported(aeadID: UInt16) -> ObliviousHTTPError {
        ObliviousHTTPError(.unsupportedAEAD, "AEAD 0x\(aeadID.hex4) is not supported")
    }
}
