import Foundation

/// The redirects one request has followed so far and the deadline they share (curl's
/// `--max-time` covers the request and all its redirects).
struct RedirectChain {
    private let original: HTTPRequest
    private let maximumRedirects: Int
    /// The whole request's time limit (`requestTimeout`), which a timeout is reported as.
    let timeLimit: Double
    private let deadline: Date
    private var visited: Set<String>
    /// Redirects followed so far.
    private(set) var followed = 0

    init(_ request: HTTPRequest, configuration: Session.Configuration) {
        original = request
        maximumRedirects = configuration.maximumRedirects
        timeLimit = configuration.requestTimeout
        deadline = Date().addingTimeInterval(min(timeLimit, 86_400 * 365))
        visited = [request.url.absoluteString]
    }

    /// `request` with what is left of the deadline as its time limit; throws once none is left.
    func timed(_ request: HTTPRequest) throws(FetchError) -> HTTPRequest {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw FetchError(.timedOut(timeLimit)) }
        var request = request
        request.timeout = min(original.timeout ?? .infinity, timeLimit.isFinite ? remaining : .infinity)
        return request
    }

    /// Runs one exchange; a timeout at the deadline is reported as the whole request's.
    func within<T>(_ exchange: () async throws -> T) async throws -> T {
        do {
            return try await exchange()
        } catch let error as FetchError {
            if case .timedOut = error.code, deadline.timeIntervalSinceNow <= 0.05 { throw FetchError(.timedOut(timeLimit)) }
            throw error
        }
    }

    /// The request to send after `response` to `current`, or nil when `response` is the final one.
    mutating func next(after response: HTTPResponse, to current: HTTPRequest) throws(FetchError) -> HTTPRequest? {
        guard original.followsRedirects, Self.isRedirect(response.statusCode), maximumRedirects > 0,
              let location = response.value(forHeaderField: "Location"),
              let next = URL(string: location, relativeTo: current.url)?.absoluteURL else {
            return nil
        }
        let request = Self.redirected(current, to: next, status: response.statusCode)
        if current.crossOriginRedirects == .sameOriginOnlyForMethodAndBody, next.originKey != current.url.originKey,
           request.body != nil || request.bodyStream != nil || !["GET", "HEAD"].contains(request.method.uppercased()) {
            return nil
        }
        followed += 1
        if followed > maximumRedirects { throw FetchError(.tooManyRedirects(maximumRedirects)) }
        if !visited.insert(next.absoluteString).inserted, current.method == "GET" {
            throw FetchError(.redirectLoop(next.absoluteString))
        }
        return request
    }

    static func isRedirect(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The request after a redirect: 303 (and 301/302 after POST) becomes a GET without a body.
    static func redirected(_ request: HTTPRequest, to url: URL, status: Int) -> HTTPRequest {
        var next = request
        next.url = url
        if status == 303 || ((status == 301 || status == 302) && request.method == "POST") {
            next.method = request.method == "HEAD" ? "HEAD" : "GET"
            next.body = nil
            next.bodyStream = nil
            next.headerFields.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        // Credentials the caller set are for the origin they named: like curl, drop them on any
        // change of scheme, host or port (a downgrade to http would send them in clear text).
        if url.originKey != request.url.originKey, request.crossOriginRedirects != .trusted {
            next.headerFields.removeAll { ["authorization", "cookie", "proxy-authorization"].contains($0.name.lowercased()) }
        }
        return next
    }
}
