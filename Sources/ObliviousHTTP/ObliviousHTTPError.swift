/// A failure anywhere in this module: Binary HTTP decoding, key configurations, HPKE or the
/// encapsulation of requests and responses. `code` names the cause; `detail` says where.
public struct ObliviousHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why an operation failed: an open set of named values, as `FetchError.Code` is (a struct of
    /// static values, so a new cause is a new value and no client's `switch` stops compiling;
    /// compare with `==` or match with a `default:`). Its `description` is the name.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        // Binary HTTP (RFC 9292)
        /// The input ended inside a message part, or a length points past the end.
        public static let truncated = Code("truncated")
        /// The framing indicator is not one of 0...3, or names the other message kind.
        public static let invalidFramingIndicator = Code("invalidFramingIndicator")
        /// A status code outside 100...599, or an informational one where a final one is due.
        public static let invalidStatus = Code("invalidStatus")
        /// A field name that is empty, not lowercase `tchar`s, or a misplaced pseudo-field.
        public static let invalidFieldName = Code("invalidFieldName")
        /// A field value with NUL, CR or LF, or with leading or trailing whitespace.
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// A method, scheme, authority or path with characters HTTP does not allow there.
        public static let invalidControlData = Code("invalidControlData")
        /// Padding that is not all zero bytes.
        public static let invalidPadding = Code("invalidPadding")
        /// Framing that contradicts itself, such as a field line running past its section.
        public static let malformedMessage = Code("malformedMessage")
        /// A message part exceeds a configured decoding limit.
        public static let limitExceeded = Code("limitExceeded")

        // Key configurations and Oblivious HTTP (RFC 9458)
        /// A key configuration (or list of them) that does not parse.
        public static let invalidKeyConfiguration = Code("invalidKeyConfiguration")
        /// An encapsulated request names a key identifier the gateway does not have.
        public static let unknownKeyID = Code("unknownKeyID")
        /// A KEM identifier this implementation does not support.
        public static let unsupportedKEM = Code("unsupportedKEM")
        /// A KDF identifier this implementation, or the key configuration, does not support.
        public static let unsupportedKDF = Code("unsupportedKDF")
        /// An AEAD identifier this implementation, or the key configuration, does not support.
        public static let unsupportedAEAD = Code("unsupportedAEAD")
        /// A ciphertext failed authentication; no plaintext was released.
        public static let authenticationFailed = Code("authenticationFailed")

        // HPKE (RFC 9180)
        /// A public or private key of the wrong length, or one giving an all-zero shared secret.
        public static let invalidKey = Code("invalidKey")
        /// A requested output length (an export, a nonce) that the algorithms cannot produce.
        public static let invalidLength = Code("invalidLength")
        /// The context's sequence number is exhausted; no more messages can be sealed or opened.
        public static let messageLimitReached = Code("messageLimitReached")
        /// OpenSSL reported an internal failure.
        public static let cryptoFailure = Code("cryptoFailure")
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
    public var description: String { "\(code): \(detail)" }
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
