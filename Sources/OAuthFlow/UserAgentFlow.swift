import Foundation
import HeadlessPage
import RelayFetch

/// The user-agent role: drive a relying party's own login in a fresh ephemeral session,
/// starting at the app's login URL, through the provider's login and consent pages, back to
/// the app, and hand back the app's final page for expectations (its text, URL, status). The
/// password goes only to `providerOrigins`: the app's own origin is not the provider's.
public struct UserAgentFlow: Sendable {
    public var startURL: URL
    public var driver: LoginDriver
    /// Where the provider's login form may submit the password.
    public var providerOrigins: ProviderOrigins
    /// Pages passed through before the app must have been reached.
    public var maximumPages = 8

    public init(startURL: URL, driver: LoginDriver, providerOrigins: ProviderOrigins) {
        self.startURL = startURL
        self.driver = driver
        self.providerOrigins = providerOrigins
    }

    /// Where the login landed.
    public struct Result: Sendable {
        /// The first page that asked nothing more of the user.
        public let finalPage: Page
        /// The URLs loaded before it, queries redacted.
        public let pages: [String]
    }

    /// Runs the login through `sessionConfiguration`'s relays in a new memory-only session.
    public func run(sessionConfiguration: Session.Configuration, recorder: ExchangeRecorder? = nil) async throws -> Result {
        var configuration = sessionConfiguration
        configuration.dataStore = .nonPersistent()
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let navigator = Navigator(session: session, recorder: recorder)
        var outcome = try await navigator.open(startURL)
        var pages: [String] = []
        var logins = 0
        while let page = outcome.page {
            guard let (form, submitter) = try driver.nextAction(on: page, loginsSoFar: logins, origins: providerOrigins) else {
                return Result(finalPage: page, pages: pages)
            }
            pages.append(LoginDriver.redacted(page.url))
            guard pages.count <= maximumPages else {
                throw OAuthError(.loginStuck(url: LoginDriver.redacted(page.url), reason: "still on forms after \(maximumPages) pages"))
            }
            if form.controls.contains(where: { $0.type == "password" }) {
                logins += 1
                outcome = try await LoginSubmission.submit(form, submitter: submitter, through: navigator, origins: providerOrigins)
            } else {
                outcome = try await navigator.submit(form, submitter: submitter)
            }
        }
        throw OAuthError(.loginStuck(url: outcome.interceptedURL.map(LoginDriver.redacted) ?? "", reason: "the navigation was intercepted"))
    }
}
