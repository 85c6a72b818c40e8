import Foundation
import HeadlessPage
import RelayFetch

/// Submits the form that carries the password so that the password reaches the provider's
/// origins only. The form's own target is checked by `LoginDriver`; this watches its answer. A
/// 307 or 308 redirect makes a browser send the same body again, password included, so one that
/// leaves the provider's origins (or goes to http) stops the flow before it is followed. Any
/// other redirect off them (back to the app, or to the redirect URI) drops the body and is
/// followed as a GET, as a browser would.
enum LoginSubmission {
    static func submit(_ form: HTMLForm, submitter: String?, through navigator: Navigator, origins: ProviderOrigins) async throws -> NavigationOutcome {
        let recorder = navigator.recorder ?? ExchangeRecorder()
        let redirectPolicy = navigator.policy
        let guarded = Navigator(session: navigator.session, policy: NavigationPolicy { url in
            redirectPolicy.shouldIntercept(url) || !origins.contains(url)
        }, maximumRedirects: navigator.maximumRedirects, recorder: recorder)
        let outcome = try await guarded.submit(form, submitter: submitter)
        guard case .intercepted(let target) = outcome, !redirectPolicy.shouldIntercept(target) else { return outcome }
        // The hop that led off the provider: the last exchange redirecting to exactly there.
        let hop = recorder.exchanges.last { exchange in
            exchange.response.headerFields.values(for: "Location").first.flatMap { URL(string: $0, relativeTo: exchange.request.url)?.absoluteURL } == target
        }
        guard let hop, ![307, 308].contains(hop.response.statusCode ?? 0) else {
            throw OAuthError(.untrustedOrigin(what: "login: the login form's answer redirects to", url: LoginDriver.redacted(target),
                                              trusted: origins.description))
        }
        return try await navigator.navigate(HTTPRequest(url: target), from: hop.request.url)
    }
}
