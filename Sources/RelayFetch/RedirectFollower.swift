import HTTPCore
import Foundation

/// The one redirect policy, shared by `Session` (requests that follow redirects) and the page
/// navigator (which must see every hop): which statuses redirect, how many may be followed, when
/// a URL seen before is a loop, and what the next request keeps. The rules are Fetch's and
/// curl's: 303, and 301/302 after a POST, become a GET without a body (unless the request keeps
/// its POST there, as curl's --post30x); 307 and 308 keep the
/// method and the body, but by default (`HTTPRequest.crossOriginRedirects`) neither goes to an
/// origin the caller did not name: such a redirect is not followed and comes back as the
/// response (`refusedTarget` says where it led); credentials the caller set (Authorization,
/// Cookie, Proxy-Authorization) go only to the origin they were set for, and are dropped on any
/// change of scheme, host or port, also on the way back (unless `trusted`). Relay hops'
/// headers are never part of a request, so no redirect can carry them to an origin.
package struct RedirectFollower {
    /// Redirects followed at most; 0 gives every redirect back as the final response.
    package let maximumRedirects: Int
    private var visited: Set<String>
    package private(set) var followed = 0
    /// Where the last response redirected to when the redirect was not followed because it
    /// would have carried the method or body to another origin.
    package private(set) var refusedTarget: URL?

    package init(_ request: HTTPRequest, maximumRedirects: Int) {
        self.maximumRedirects = maximumRedirects
        visited = [request.url.absoluteString]
    }

    package static func isRedirect(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The request to send after `response` to `current`, or nil when `response` is the final
    /// one (not a redirect, no usable Location, following is off, or a redirect that may not
    /// carry the method or body to another origin). Throws past the limit and on a loop (a GET
    /// or HEAD of a URL already requested).
    package mutating func next(after response: HTTPResponse, to current: HTTPRequest) throws(FetchError) -> HTTPRequest? {
        guard Self.isRedirect(response.statusCode), maximumRedirects > 0,
              let location = response.value(forHeaderField: "Location"),
              let target = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: current.url)?.absoluteURL else {
            return nil
        }
        guard let next = Self.redirected(current, to: target, status: response.statusCode) else {
            refusedTarget = target
            return nil
        }
        followed += 1
        if followed > maximumRedirects { throw FetchError(.tooManyRedirects(maximumRedirects)) }
        if !visited.insert(target.absoluteString).inserted, next.method == "GET" || next.method == "HEAD" {
            throw FetchError(.redirectLoop(target.absoluteString))
        }
        return next
    }

    /// The request after a redirect of `request` to `url` with `status`; nil when it may not be
    /// followed (its method or body would go to another origin).
    package static func redirected(_ request: HTTPRequest, to url: URL, status: Int) -> HTTPRequest? {
        var next = request
        next.url = url
        let method = request.method.uppercased()
        next.method = method
        let keepsPOST = method == "POST" && request.postKeptOnRedirects.contains(status)
        if !keepsPOST && (status == 303 || ((status == 301 || status == 302) && method == "POST")) {
            next.method = method == "HEAD" ? "HEAD" : "GET"
            next.body = nil
            next.bodyStream = nil
            next.headerFields.removeAll { bodyFields.contains($0.name.lowercased()) }
        }
        if request.refersOnRedirects {
            next.referrer = request.url
            next.referrerPolicy = .unsafeURL
        }
        if url.originKey != request.url.originKey {
            let carries = next.body != nil || next.bodyStream != nil || !(next.method == "GET" || next.method == "HEAD")
            if carries, request.crossOriginRedirects == .sameOriginOnlyForMethodAndBody { return nil }
            if request.crossOriginRedirects != .trusted {
                next.headerFields.removeAll { credentialFields.contains($0.name.lowercased()) }
            }
        }
        return next
    }

    /// Fields that describe a body, gone with it (Fetch's request-body-header names, and
    /// `Origin`, which a GET navigation does not carry).
    private static let bodyFields: Set<String> = ["content-type", "content-length", "content-encoding", "content-language", "content-location", "origin"]
    /// Fields that hold the caller's credentials for the origin they named.
    private static let credentialFields: Set<String> = ["authorization", "cookie", "proxy-authorization"]
}
