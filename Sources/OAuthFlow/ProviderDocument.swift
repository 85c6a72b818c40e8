import Foundation
import HeadlessPage
import RelayFetch

/// Fetches a document the provider's security rests on (the discovery document, the JWK Set):
/// redirects are followed only to https on the same origin as the URL asked for. A redirect to
/// another origin or to http could hand the client endpoints or keys of someone else's choosing.
enum ProviderDocument {
    /// Same-origin redirects followed before giving up.
    static let maximumRedirects = 5

    /// The body and response of the first non-redirect answer; throws `discovery` naming the
    /// redirect refused.
    static func fetch(_ url: URL, session: Session, recorder: ExchangeRecorder?) async throws -> (Data, HTTPResponse) {
        let origin = ProviderOrigins(issuer: nil, others: [url])
        var current = url
        for _ in 0...maximumRedirects {
            var request = HTTPRequest(url: current, headerFields: [("Accept", "application/json")])
            request.followsRedirects = false
            let (body, response) = try await session.data(for: request, recorder: recorder)
            guard [301, 302, 303, 307, 308].contains(response.statusCode) else { return (body, response) }
            guard let location = response.value(forHeaderField: "Location"),
                  let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                throw OAuthError(.discovery("\(LoginDriver.redacted(current)) answered HTTP \(response.statusCode) without a usable Location"))
            }
            guard origin.contains(next) else {
                throw OAuthError(.discovery("\(LoginDriver.redacted(current)) redirected to \(LoginDriver.redacted(next)): "
                                            + "provider documents follow redirects only to https on \(LoginDriver.redacted(url))'s own origin"))
            }
            current = next
        }
        throw OAuthError(.discovery("\(LoginDriver.redacted(url)) redirected more than \(maximumRedirects) times"))
    }
}
