import Foundation

/// The redirects one request has followed so far and the deadline they share (curl's
/// `--max-time` covers the request and all its redirects).
struct RedirectChain {
    private let original: HTTPRequest
    private var follower: RedirectFollower
    /// Redirects followed so far.
    var followed: Int { follower.followed }
    /// The whole request's time limit (`requestTimeout`), which a timeout is reported as.
    let timeLimit: Double
    private let deadline: Date

    init(_ request: HTTPRequest, configuration: Session.Configuration) {
        original = request
        follower = RedirectFollower(request, maximumRedirects: configuration.maximumRedirects)
        timeLimit = configuration.requestTimeout
        deadline = Date().addingTimeInterval(min(timeLimit, 86_400 * 365))
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

    /// The request to send after `response` to `current`, or nil when `response` is the final
    /// one; by the shared `RedirectFollower` policy, when the request follows redirects.
    mutating func next(after response: HTTPResponse, to current: HTTPRequest) throws(FetchError) -> HTTPRequest? {
        guard original.followsRedirects else { return nil }
        return try follower.next(after: response, to: current)
    }
}
