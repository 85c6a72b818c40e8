/// Why a crawl could not run: its store, its outputs or its input. Page failures are not errors
/// of the crawl; they are recorded per page.
///
/// `code` is an open set, as `FetchError.Code` is (a struct of static values: a new condition is
/// a new value and no client's `switch` stops compiling); compare with `==` or match with a
/// `default:`.
public struct CrawlError: Error, Sendable, CustomStringConvertible {
    package enum Detail: Sendable {
        case store(String)
        case output(String)
        case seeds(String)
        case scope(String)
        case relays(String)
    }

    /// Which condition a `CrawlError` is: an open set of named values. Its `description` is the
    /// name, stable for logs and scripts.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// The crawl store (SQLite file, PostgreSQL database, its lock) failed.
        public static let store = Code("store")
        /// An output (JSON lines, WARC) failed.
        public static let output = Code("output")
        /// The seeds cannot be used.
        public static let seeds = Code("seeds")
        /// The scope cannot be used.
        public static let scope = Code("scope")
        /// The relay chains cannot be used for a crawl.
        public static let relays = Code("relays")
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    static func store(_ why: String) -> CrawlError { CrawlError(.store(why)) }
    static func output(_ why: String) -> CrawlError { CrawlError(.output(why)) }
    static func seeds(_ why: String) -> CrawlError { CrawlError(.seeds(why)) }
    static func scope(_ why: String) -> CrawlError { CrawlError(.scope(why)) }
    static func relays(_ why: String) -> CrawlError { CrawlError(.relays(why)) }

    public var code: Code {
        switch detail {
        case .store: return .store
        case .output: return .output
        case .seeds: return .seeds
        case .scope: return .scope
        case .relays: return .relays
        }
    }

    /// Whether an output (JSON lines, WARC) failed, rather than the store or the input.
    public var isOutputFailure: Bool { code == .output }

    public var description: String {
        switch detail {
        case .store(let why): return "crawl store: \(why)"
        case .output(let why): return "crawl output: \(why)"
        case .seeds(let why): return "seeds: \(why)"
        case .scope(let why): return "scope: \(why)"
        case .relays(let why): return "relays: \(why)"
        }
    }
}
