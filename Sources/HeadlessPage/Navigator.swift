import Foundation
import RelayFetch

/// Drives a session the way a user drives a browser tab: open a URL, submit a form, follow a
/// link. It follows redirects itself (303, and 301/302 after a POST, become GET) so that its
/// `NavigationPolicy` sees every hop and can intercept one before it is requested. Requests go
/// through the session's relays with its cookie jar; a POST carries `Origin`, and every request
/// a `Referer` under the strict-origin-when-cross-origin policy. Pages are documents only: no
/// subresources are loaded (use `PageLoader` for those).
public final class Navigator: Sendable {
    public let session: Session
    public let policy: NavigationPolicy
    public let maximumRedirects: Int
    /// Keeps every exchange (each redirect hop too), when given.
    public let recorder: ExchangeRecorder?

    public init(session: Session, policy: NavigationPolicy = .loadEverything, maximumRedirects: Int = 20, recorder: ExchangeRecorder? = nil) {
        self.session = session
        self.policy = policy
        self.maximumRedirects = maximumRedirects
        self.recorder = recorder
    }

    /// Opens `url` as if typed in the address bar (no referrer).
    public func open(_ url: URL) async throws -> NavigationOutcome {
        try await navigate(HTTPRequest(url: url), from: nil)
    }

    /// Submits `form` with the submit button `submitter` matches (name, id, value or text; nil
    /// for none). Throws `FormError` when the form cannot be submitted.
    public func submit(_ form: HTMLForm, submitter: String? = nil) async throws -> NavigationOutcome {
        try await navigate(try form.request(submitter: submitter), from: form.documentURL)
    }

    /// Follows a link (`<a href>`, `<area href>`) of `page`.
    public func follow(_ link: HTMLElement, on page: Page) async throws -> NavigationOutcome {
        guard let href = link.attribute("href"), let url = URL(string: href.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: page.baseURL)?.absoluteURL else {
            throw FetchError(.invalidURL(link.attribute("href") ?? "(a link without href)"))
        }
        return try await navigate(HTTPRequest(url: url), from: page.url)
    }

    /// Sends `request` as a navigation from the document at `referrer`, following redirects.
    public func navigate(_ request: HTTPRequest, from referrer: URL?) async throws -> NavigationOutcome {
        let started = Date()
        var current = request
        current.followsRedirects = false
        if !current.headerFields.contains(where: { $0.name.lowercased() == "accept" }) {
            current.headerFields.append(("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"))
        }
        if current.method == "POST", let referrer, let origin = Self.origin(referrer) {
            current.headerFields.append(("Origin", origin))
        }
        for _ in 0...maximumRedirects {
            if policy.shouldIntercept(current.url) { return .intercepted(current.url) }
            var sent = current
            if let referrer, let value = Self.referer(from: referrer, to: current.url) { sent.headerFields.append(("Referer", value)) }
            var main = PageResource(url: sent.url, kind: .other, referrer: referrer, startedAt: Date())
            let (body, response) = try await session.data(for: sent, recorder: recorder)
            if [301, 302, 303, 307, 308].contains(response.statusCode), let location = response.value(forHeaderField: "Location"),
               let next = URL(string: location, relativeTo: current.url)?.absoluteURL {
                current = Self.redirected(current, to: next, status: response.statusCode)
                continue
            }
            main.record(response: response, body: body, request: sent, keepBody: true)
            let document = HTMLDocument(data: body, url: response.url, charset: ContentType(response).charset)
                ?? HTMLDocument(data: Data("<html></html>".utf8), url: response.url)!
            return .page(Page(url: response.url, statusCode: response.statusCode, headerFields: response.headerFields,
                              document: document, main: main, resources: [], startedAt: started,
                              loadTime: Date().timeIntervalSince(started)))
        }
        throw FetchError(.tooManyRedirects(maximumRedirects))
    }

    /// The request after a redirect: 303 (and 301/302 after POST) becomes a body-less GET.
    static func redirected(_ request: HTTPRequest, to url: URL, status: Int) -> HTTPRequest {
        var next = request
        next.url = url
        if status == 303 || ((status == 301 || status == 302) && request.method == "POST") {
            next.method = "GET"
            next.body = nil
            next.headerFields.removeAll { ["content-type", "content-length", "origin"].contains($0.name.lowercased()) }
        }
        if origin(url) != origin(request.url) {
            next.headerFields.removeAll { ["authorization", "cookie"].contains($0.name.lowercased()) }
        }
        return next
    }

    /// strict-origin-when-cross-origin: the full URL (no fragment) to the same origin, the
    /// origin across origins, nothing from https to http.
    static func referer(from referrer: URL, to target: URL) -> String? {
        guard let scheme = referrer.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        if scheme == "https" && target.scheme?.lowercased() != "https" { return nil }
        if origin(referrer) == origin(target) {
            var components = URLComponents(url: referrer, resolvingAgainstBaseURL: false)
            components?.fragment = nil
            components?.user = nil
            components?.password = nil
            return components?.string
        }
        return origin(referrer).map { $0 + "/" }
    }

    /// The serialized origin (`https://host[:port]`), nil for non-http(s) URLs.
    static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host else { return nil }
        let port = url.port.flatMap { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? nil : $0 }
        return "\(scheme)://\(host.lowercased())" + (port.map { ":\($0)" } ?? "")
    }
}
