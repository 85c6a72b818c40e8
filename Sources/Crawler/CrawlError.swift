/// Why a crawl could not run: its store, its outputs or its input. Page failures are not errors
/// of the crawl; they are recorded per page.
public struct CrawlError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        case store(String)
        case output(String)
        case seeds(String)
        case scope(String)
        case relays(String)
    }

    let code: Code

    init(_ code: Code) { self.code = code }

    static func store(_ why: String) -> CrawlError { CrawlError(.store(why)) }
    static func output(_ why: String) -> CrawlError { CrawlError(.output(why)) }
    static func seeds(_ why: String) -> CrawlError { CrawlError(.seeds(why)) }
    static func scope(_ why: String) -> CrawlError { CrawlError(.scope(why)) }
    static func relays(_ why: String) -> CrawlError { CrawlError(.relays(why)) }

    /// Whether an output (JSON lines, WARC) failed, rather than the store or the input.
    public var isOutputFailure: Bool {
        if case .output = code { return true }
        return false
    }

    public var description: String {
        switch code {
        case .store(let why): return "crawl store: \(why)"
        case .output(let why): return "crawl output: \(why)"
        case .seeds(let why): return "seeds: \(why)"
        case .scope(let why): return "scope: \(why)"
        case .relays(let why): return "relays: \(why)"
        }
    }
}
