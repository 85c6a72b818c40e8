/// A header field that may not be sent: its name is not a token, or its value holds a CR, LF or
/// NUL (it would end the header early or inject another field). Names the field, never its value
/// (which may be a credential).
///
/// `code` is an open set, as `FetchError.Code` is (a struct of static values: a new condition is
/// a new value and no client's `switch` stops compiling); compare with `==` or match with a
/// `default:`. The field's name is `fieldName`.
public struct HTTPFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Detail: Sendable, Equatable {
        case invalidName(String)
        case invalidValue(name: String)
    }

    /// Which condition an `HTTPFieldError` is. Its `description` is the name, stable for logs.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// The name is not a token (RFC 9110 §5.1).
        public static let invalidName = Code("invalidName")
        /// The value holds a CR, LF or NUL (§5.5).
        public static let invalidValue = Code("invalidValue")
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    public var code: Code {
        switch detail {
        case .invalidName: return .invalidName
        case .invalidValue: return .invalidValue
        }
    }

    /// The field's name, as given.
    public var fieldName: String {
        switch detail {
        case .invalidName(let name), .invalidValue(let name): return name
        }
    }

    public var description: String {
        switch detail {
        case .invalidName(let name): return "invalid header field name \"\(name.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())\""
        case .invalidValue(let name): return "the value of header field \(name) holds a line break or NUL"
        }
    }
}
