/// A header field that may not be sent: its name is not a token, or its value holds a CR, LF or
/// NUL (it would end the header early or inject another field). Names the field, never its value
/// (which may be a credential).
public struct HTTPFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case invalidName(String)
        case invalidValue(name: String)
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .invalidName(let name): return "invalid header field name \"\(name.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())\""
        case .invalidValue(let name): return "the value of header field \(name) holds a line break or NUL"
        }
    }
}
