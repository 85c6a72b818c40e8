import Foundation
import RelayFetch

/// One HTTP exchange as the archive writers read it (HAR, WARC): the request, the response head,
/// the timings, the relay chain that carried it and where its body is. The page loader
/// (`PageResource.exchange`), a flow's `ExchangeRecorder` and the crawler each record their
/// exchanges as this and nothing else, so every writer reads a single shape whichever command
/// produced it.
public struct HTTPExchange: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var url: URL
        public var headerFields: HTTPFields
        public var body: Data?

        public init(method: String, url: URL, headerFields: HTTPFields, body: Data? = nil) {
            self.method = method
            self.url = url
            self.headerFields = headerFields
            self.body = body
        }
    }

    public struct ResponseHead: Sendable {
        /// Nil when no response came (the exchange failed).
        public var statusCode: Int?
        /// "HTTP/1.1", "HTTP/2" or "HTTP/3"; nil when no response came.
        public var httpVersion: String?
        public var headerFields: HTTPFields
        /// The body's media type as the producer read it (nil when unknown).
        public var mimeType: String?

        public init(statusCode: Int?, httpVersion: String?, headerFields: HTTPFields, mimeType: String?) {
            self.statusCode = statusCode
            self.httpVersion = httpVersion
            self.headerFields = headerFields
            self.mimeType = mimeType
        }
    }

    /// Where the response body is: kept in memory, spooled to an unnamed file, or not kept.
    public enum Body: Sendable {
        case none
        case data(Data)
        case spooled(SpooledBody)

        /// Whether a body was kept, in memory or spooled.
        public var isKept: Bool {
            if case .none = self { return false }
            return true
        }

        /// Bytes kept (0 when none was).
        public var count: Int {
            switch self {
            case .none: return 0
            case .data(let data): return data.count
            case .spooled(let spooled): return spooled.count
            }
        }

        /// Hands the kept body to `consume` in chunks; nothing when none was kept.
        public func forEachChunk(_ consume: (Data) throws -> Void) throws {
            switch self {
            case .none: return
            case .data(let data): try consume(data)
            case .spooled(let spooled): try spooled.forEachChunk(consume)
            }
        }
    }

    public var request: Request
    public var response: ResponseHead
    public var body: Body
    /// The body's size in bytes as received (also when it was not kept).
    public var bodySize: Int
    public var startedAt: Date
    /// Seconds from the request to the last byte.
    public var duration: Double
    public var timings: HTTPTimings
    /// The relay hops that carried it, nearest the client first (empty when direct).
    public var relayChain: [String]
    /// When this exchange opened its tunnel, each hop's timing (empty on a reused connection).
    public var relayHopTimings: [RelayHopTiming]
    /// Why it failed, when it did.
    public var error: String?

    public init(request: Request, response: ResponseHead, body: Body, bodySize: Int, startedAt: Date, duration: Double,
                timings: HTTPTimings = HTTPTimings(), relayChain: [String] = [], relayHopTimings: [RelayHopTiming] = [], error: String? = nil) {
        self.request = request
        self.response = response
        self.body = body
        self.bodySize = bodySize
        self.startedAt = startedAt
        self.duration = duration
        self.timings = timings
        self.relayChain = relayChain
        self.relayHopTimings = relayHopTimings
        self.error = error
    }

    /// The whole body in memory (reads a spooled one back); nil when none was kept.
    public func wholeBody() throws -> Data? {
        if case .none = body { return nil }
        var data = Data(capacity: body.count)
        try body.forEachChunk { data.append($0) }
        return data
    }
}
