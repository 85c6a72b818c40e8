/// Why a name could not be resolved, or a DNS message could not be read or written: the
/// module's one error. The description names the host (when there is one) and the cause.
///
/// `code` is an open set, as `FetchError.Code` is (a struct of static values: a new condition is
/// a new value and no client's `switch` stops compiling); compare with `==` or match with a
/// `default:`. `Detail` holds the condition's values inside the package, where the text is written.
public struct ResolutionError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Detail: Hashable, Sendable {
        case truncated
        case badName(String)
        case badRecord(String)
        case badQuery(String)
        /// `host` could not be resolved; `code` says how (one of the resolution codes), `reason`
        /// in words, naming the resolver.
        case unresolved(host: String, code: Code, reason: String)
    }

    /// Which condition a `ResolutionError` is. Its `description` is the name, stable for logs.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// A DNS message ends early.
        public static let truncated = Code("truncated")
        /// A name in a DNS message is malformed (a label too long, a pointer loop).
        public static let badName = Code("badName")
        /// A record in a DNS message is malformed.
        public static let badRecord = Code("badRecord")
        /// The name cannot be asked for (empty labels, too long).
        public static let badQuery = Code("badQuery")
        /// The resolver says the name does not exist (NXDOMAIN).
        public static let noSuchName = Code("noSuchName")
        /// The name exists but has no address.
        public static let noAddress = Code("noAddress")
        /// The resolver could not be asked (its transport failed).
        public static let resolverFailed = Code("resolverFailed")
        /// The resolver's answer is malformed or answers another question.
        public static let badAnswer = Code("badAnswer")
        /// The resolver answered with an error RCODE other than NXDOMAIN.
        public static let refused = Code("refused")
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    public static let truncated = ResolutionError(.truncated)
    static func badName(_ why: String) -> ResolutionError { ResolutionError(.badName(why)) }
    static func badRecord(_ why: String) -> ResolutionError { ResolutionError(.badRecord(why)) }
    static func badQuery(_ why: String) -> ResolutionError { ResolutionError(.badQuery(why)) }
    static func unresolved(_ host: String, _ code: Code, _ reason: String) -> ResolutionError {
        ResolutionError(.unresolved(host: host, code: code, reason: reason))
    }

    public var code: Code {
        switch detail {
        case .truncated: return .truncated
        case .badName: return .badName
        case .badRecord: return .badRecord
        case .badQuery: return .badQuery
        case .unresolved(_, let code, _): return code
        }
    }

    /// The name that could not be resolved (nil for an error of a DNS message itself).
    public var host: String? {
        if case .unresolved(let host, _, _) = detail { return host }
        return nil
    }

    public var description: String {
        switch detail {
        case .truncated: return "the DNS message ends early"
        case .badName(let why): return "bad name in the DNS message: \(why)"
        case .badRecord(let why): return "bad record in the DNS message: \(why)"
        case .badQuery(let why): return "cannot ask for that name: \(why)"
        case .unresolved(let host, _, let reason): return "cannot resolve \(host): \(reason)"
        }
    }
}
