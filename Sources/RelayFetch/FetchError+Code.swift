extension FetchError {
    /// Which condition a `FetchError` is: an open set of named values (see `FetchError`). Its
    /// `description` is the name, stable for logs and scripts.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        public static let invalidURL = Code("invalidURL")
        public static let unsupportedScheme = Code("unsupportedScheme")
        public static let invalidRelay = Code("invalidRelay")
        /// A hop of the chain failed, or cut the tunnel after it was up (`relayError` names it).
        public static let relay = Code("relay")
        /// The exchange with the origin failed after the tunnel was up (or, direct, at all).
        public static let transfer = Code("transfer")
        public static let tooManyRedirects = Code("tooManyRedirects")
        public static let redirectLoop = Code("redirectLoop")
        public static let responseTooLarge = Code("responseTooLarge")
        public static let timedOut = Code("timedOut")
        /// No byte arrived for `seconds` from `peer`.
        public static let idleTimeout = Code("idleTimeout")
        /// An Oblivious HTTP exchange failed (relay refused, bad key, response not authentic).
        public static let oblivious = Code("oblivious")
        /// A name relayfetch resolves itself could not be resolved (encrypted resolution).
        public static let nameResolution = Code("nameResolution")
        /// No relay configuration covers `host`, and the session allows no direct connection.
        public static let notRelayed = Code("notRelayed")
    }

    public var code: Code {
        switch detail {
        case .invalidURL: return .invalidURL
        case .unsupportedScheme: return .unsupportedScheme
        case .invalidRelay: return .invalidRelay
        case .relay: return .relay
        case .transfer: return .transfer
        case .tooManyRedirects: return .tooManyRedirects
        case .redirectLoop: return .redirectLoop
        case .responseTooLarge: return .responseTooLarge
        case .timedOut: return .timedOut
        case .idleTimeout: return .idleTimeout
        case .oblivious: return .oblivious
        case .nameResolution: return .nameResolution
        case .notRelayed: return .notRelayed
        }
    }

    /// The time limit that ran out (`timedOut`), or the silence that did (`idleTimeout`).
    public var seconds: Double? {
        switch detail {
        case .timedOut(let seconds), .idleTimeout(let seconds, _, _, _): return seconds
        default: return nil
        }
    }

    /// The limit that was passed: bytes (`responseTooLarge`) or redirects (`tooManyRedirects`).
    public var limit: Int? {
        switch detail {
        case .responseTooLarge(let limit), .tooManyRedirects(let limit): return limit
        default: return nil
        }
    }

    /// The host no relay configuration covers (`notRelayed`).
    public var host: String? {
        if case .notRelayed(let host) = detail { return host }
        return nil
    }

    /// The host:port that went silent (`idleTimeout`).
    public var peer: String? {
        if case .idleTimeout(_, let peer, _, _) = detail { return peer }
        return nil
    }
}
