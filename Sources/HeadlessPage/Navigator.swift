import HTTPCore
import Foundation
import RelayFetch
import HTMLDOM

/// Drives a session the way a user drives a browser tab: open a URL, submit a form, follow a
/// link. It follows redirects itself, by the session's one redirect policy (`RedirectFollower`:
/// limits, loops, what a redirected request keeps), so that its `NavigationPolicy` sees every
/// hop and can intercept one before it is requested. Requests go through the session's relays
/// with its cookie jar; a POST carries `Origin`, and every request a `Referer` under the
/// strict-origin-when-cross-origin policy. Pages are documents only: no subresources are
/// loaded (use `PageLoader` for those).
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
        if current.method == "POST", let referrer, let origin = referrer.serializedOrigin {
            current.headerFields.append(("Origin", origin))
        }
        current.referrer = referrer
        current.referrerPolicy = .strictOriginWhenCrossOrigin
        var redirects = RedirectFollower(current, maximumRedirects: maximumRedirects)
        while true {
            if policy.shouldIntercept(current.url) { return .intercepted(current.url) }
            let sent = current
            let sentAt = Date()
            let (body, response) = try await session.data(for: sent, recorder: recorder)
            if let next = try redirects.next(after: response, to: current) {
                current = next
                continue
            }
            // A redirect not followed (it would carry the body elsewhere) that the policy would
            // intercept anyway is the policy's to report.
            if let refused = redirects.refusedTarget, policy.shouldIntercept(refused) { return .intercepted(refused) }
            let main = PageResource(kind: .other, referrer: referrer,
                                    exchange: .loaded(sent, response: response, body: body, startedAt: sentAt, keepBody: true))
            let document = HTMLDocument(data: body, url: response.url, charset: response.contentType.charset)
                ?? HTMLDocument(data: Data("<html></html>".utf8), url: response.url)!
            return .page(Page(url: response.url, statusCode: response.statusCode, headerFields: response.headerFields,
                              document: document, main: main, resources: [], startedAt: started,
                              loadTime: Date().timeIntervalSince(started)))
        }
    }
}
