import Foundation
import HTTPCore
import RelayTransport
// The header type of the public API, and what a bad field throws.
@_exported import struct HTTPCore.HTTPFields
@_exported import struct HTTPCore.HTTPFieldError
@_exported import enum HTTPCore.ReferrerPolicy

/// A request to send: method, URL, header fields and an optional body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    /// Checked when the request enters a session (`HTTPFieldError`).
    public var headerFields: HTTPFields
    public var body: Data?
    /// A body read while it is sent, instead of `body` (curl's `-T`): any size, never whole in
    /// memory (except through Oblivious HTTP, whose one sealed message holds it, up to the
    /// session's `maximumResponseSize`).
    public var bodyStream: RequestBodyStream?
    /// What a redirect to another origin (scheme, host or port) may carry.
    public var crossOriginRedirects: CrossOriginRedirects = .sameOriginOnlyForMethodAndBody
    /// The top-level page this request is for; a cross-site request carries only SameSite=None cookies.
    public var siteForCookies: URL?
    /// Seconds this request may take (each exchange of it), if less than the session's limit.
    public var timeout: Double?
    /// The document that made this request: the session sends `Referer` as `referrerPolicy`
    /// allows, worked out again for each redirect (a `Referer` field given here is replaced).
    public var referrer: URL?
    public var referrerPolicy: ReferrerPolicy = .strictOriginWhenCrossOrigin
    /// A budget shared with other requests that this one's body bytes are taken from.
    public var byteBudget: ByteBudget?
    /// False to get a redirect response back instead of following it (a browser-like navigator
    /// that must see every hop, e.g. to intercept an OAuth redirect URI).
    public var followsRedirects = true
    /// Whether the session's cookie jar applies: its cookies are sent and the response's
    /// Set-Cookie fields kept (as `URLRequest.httpShouldHandleCookies`). False leaves the jar
    /// untouched: a crawler's pages then never share cookies.
    public var httpShouldHandleCookies = true
    /// Largest body accepted for this request, in bytes (curl's `--max-filesize`): a larger one
    /// fails with `responseTooLarge`, before any byte when its length is declared. nil: the
    /// session's `maximumResponseSize` for a buffered body, no limit for a streamed one. For a
    /// 206 the bytes before its range count too: the limit is on the whole resource, so a
    /// resumed download cannot grow a file past it.
    public var maximumBodySize: Int?
    /// Media types whose bodies are wanted ("text/html", or "text/*"); nil for any. A 2xx
    /// response of another type (or of none) is not read: the transfer stops once its header
    /// has arrived, and the response comes back with an empty body and `bodySkipped` set.
    public var acceptedMediaTypes: [String]?
    /// Whether each followed redirect carries the URL it came from as `Referer` (curl's
    /// `--referer ";auto"`, CURLOPT_AUTOREFERER): in full, without credentials or fragment.
    public var refersOnRedirects = false
    /// Redirect statuses among 301, 302 and 303 after which a POST stays a POST with its body
    /// (curl's `--post301`, `--post302`, `--post303`); 307 and 308 always keep it. Another
    /// origin still gets the method and body only as `crossOriginRedirects` allows.
    public var postKeptOnRedirects: Set<Int> = []
    /// Set on the TCP attempt of an origin race (`HTTP3OriginRoute`): libcurl sends the request
    /// only if TCP claims it first.
    var originRace: OriginRace?

    public init(url: URL, method: String = "GET", headerFields: HTTPFields = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headerFields = headerFields
        self.body = body
    }
}

extension HTTPRequest {
    /// What follows a redirect to another origin. Credentials the caller set (Authorization,
    /// Cookie, Proxy-Authorization fields) never do, except under `trusted`.
    public enum CrossOriginRedirects: Sendable {
        /// As browsers: a 307 or 308 keeps the method and body.
        case browser
        /// The default: a redirect that would take a method other than GET or HEAD, or a body,
        /// to another origin is not followed; it comes back as the response.
        case sameOriginOnlyForMethodAndBody
        /// As curl's `--location-trusted`: method, body and credentials all follow.
        case trusted
    }

    /// Whether the body of a response with `status` and `contentType` is wanted: always unless
    /// it is a 2xx response and `acceptedMediaTypes` names neither its type nor `type/*`.
    func wantsBody(status: Int, contentType: String?) -> Bool {
        guard let accepted = acceptedMediaTypes, (200..<300).contains(status) else { return true }
        return ContentType(contentType).matches(any: accepted)
    }
}

/// A response: status, header fields in order, the URL it finally came from, and how it came.
public struct HTTPResponse: Sendable {
    public let statusCode: Int
    /// "HTTP/1.1", "HTTP/2" or "HTTP/3".
    public let httpVersion: String
    public let headerFields: HTTPFields
    /// The URL after redirects.
    public let url: URL
    /// The relay hops that carried the final exchange (empty for a direct one).
    public let relayHops: [String]
    /// How long each phase of the final exchange took.
    public var timings = HTTPTimings()
    /// When the exchange opened its relay tunnel: when each hop's tunnel was open (empty on a
    /// connection an earlier exchange opened, and for direct exchanges).
    public var relayHopTimings: [RelayHopTiming] = []
    /// True when the body came from the session's cache (fresh, or revalidated with a 304).
    public var fromCache = false
    /// True when the body was not read: the request's `acceptedMediaTypes` leave this type out.
    public var bodySkipped = false
    /// Redirects followed to reach this response.
    public var redirectCount = 0

    /// The first value of `name`, compared case-insensitively (`headerFields[name]` combines them all).
    public func value(forHeaderField name: String) -> String? {
        headerFields.values(for: name).first
    }

    /// The Content-Type field's media type and charset.
    package var contentType: ContentType { ContentType(value(forHeaderField: "Content-Type")) }
}

/// One hop of a tunnel an exchange opened: which relay, how it was spoken to, and how long after
/// the chain started its tunnel was open (a hop's time includes the hops before it).
public struct RelayHopTiming: Sendable, Equatable, CustomStringConvertible {
    /// 1-based position in the chain, nearest the client first; 0 for an origin's own
    /// connection (HTTP/3 to the origin, which `-v` names after the hops).
    public let index: Int
    /// "host:port" of the relay (or origin).
    public let hop: String
    public let protocolName: String
    public let tunnelOpenAfter: Double
    /// True when the tunnel went over a multiplexed (HTTP/2 or HTTP/3) connection that was already open.
    public let reusedConnection: Bool

    public init(index: Int, hop: String, protocolName: String, tunnelOpenAfter: Double, reusedConnection: Bool) {
        self.index = index
        self.hop = hop
        self.protocolName = protocolName
        self.tunnelOpenAfter = tunnelOpenAfter
        self.reusedConnection = reusedConnection
    }

    /// The transport's report of one hop.
    init(_ report: HopReport) {
        self.init(index: report.hop.index, hop: report.hop.endpoint, protocolName: report.hop.protocolName,
                  tunnelOpenAfter: report.connectedAfter, reusedConnection: report.reusedConnection)
    }

    /// "hop 1 (relay.example:443, HTTPS, HTTP/2 CONNECT): tunnel open after 12 ms (reused connection)";
    /// index 0, the origin's own QUIC connection: "origin example.com:443 (QUIC, HTTP/3): connected after 20 ms".
    public var description: String {
        let after = Int((tunnelOpenAfter * 1000).rounded())
        if index == 0 { return "origin \(hop) (\(protocolName)): connected after \(after) ms" }
        return "hop \(index) (\(hop), \(protocolName)): tunnel open after \(after) ms" + (reusedConnection ? " (reused connection)" : "")
    }
}

/// Phases of one exchange in seconds, as HAR reports them; -1 where a phase did not happen
/// (e.g. no connect on a reused connection).
public struct HTTPTimings: Sendable, Codable {
    public var blocked: Double = -1
    public var dns: Double = -1
    public var connect: Double = -1
    public var ssl: Double = -1
    public var send: Double = 0
    public var wait: Double = 0
    public var receive: Double = 0
    public var total: Double = 0
    public init() {}
}
