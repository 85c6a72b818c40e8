/// Why a DNS message could not be read or an answer could not be used.
public struct DNSMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case truncated
        case badName(String)
        case badRecord(String)
        case badQuery(String)
    }
    private let code: Code

    public static let truncated = DNSMessageError(code: .truncated)
    static func badName(_ why: String) -> DNSMessageError { DNSMessageError(code: .badName(why)) }
    static func badRecord(_ why: String) -> DNSMessageError { DNSMessageError(code: .badRecord(why)) }
    static func badQuery(_ why: String) -> DNSMessageError { DNSMessageError(code: .badQuery(why)) }

    public var description: String {
        switch code {
        case .truncated: return "the DNS message ends early"
        case .badName(let why): return "bad name in the DNS message: \(why)"
        case .badRecord(let why): return "bad record in the DNS message: \(why)"
        case .badQuery(let why): return "cannot ask for that name: \(why)"
        }
    }
}
