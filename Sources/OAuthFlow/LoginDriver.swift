import Foundation
import HeadlessPage
import RelayFetch

/// Plays the user on the provider's pages: fills the login form (the form with a password
/// field) with the credentials, then answers the consent form. No script runs; each page's
/// form is submitted as a browser would. The password goes only into a form that submits (with
/// the button it is submitted by) to one of the provider's https origins, as a POST: a page
/// that points its login form anywhere else stops the flow before anything is sent.
public struct LoginDriver: Sendable {
    /// What the user answers on the consent page.
    public enum Consent: Sendable {
        case approve
        case deny
    }

    public var username: String
    public var password: String
    public var consent: Consent
    /// The consent page's approve and deny buttons (name, id, value or text).
    public var approveButton: String
    public var denyButton: String

    public init(username: String, password: String, consent: Consent = .approve, approveButton: String = "Authorize",
                denyButton: String = "Cancel") {
        self.username = username
        self.password = password
        self.consent = consent
        self.approveButton = approveButton
        self.denyButton = denyButton
    }

    /// The form to submit on `page` and with which button; throws `loginStuck` when the page
    /// has neither a login nor a consent form, or shows the login form again after a login, and
    /// `untrustedOrigin` when the login form submits off `origins`.
    func action(on page: Page, loginsSoFar: Int, origins: ProviderOrigins) throws(OAuthError) -> (form: HTMLForm, submitter: String?) {
        guard let action = try nextAction(on: page, loginsSoFar: loginsSoFar, origins: origins) else {
            let wanted = consent == .approve ? approveButton : denyButton
            throw OAuthError(.loginStuck(url: Self.redacted(page.url), reason: "no login form and no \"\(wanted)\" button (HTTP \(page.statusCode))"))
        }
        return action
    }

    /// Like `action(on:loginsSoFar:)`, but nil when the page asks nothing of the user (a user
    /// agent's login has landed).
    func nextAction(on page: Page, loginsSoFar: Int, origins: ProviderOrigins) throws(OAuthError) -> (form: HTMLForm, submitter: String?)? {
        let forms = page.forms
        if var login = forms.first(where: { $0.controls.contains { $0.type == "password" } }) {
            guard loginsSoFar == 0 else {
                throw OAuthError(.loginStuck(url: Self.redacted(page.url), reason: "the login form came back after signing in (wrong credentials?)"))
            }
            guard let passwordIndex = login.controls.firstIndex(where: { $0.type == "password" && !$0.isDisabled }),
                  let userIndex = login.controls.firstIndex(where: { ["text", "email"].contains($0.type) && !$0.isDisabled }) else {
                throw OAuthError(.loginStuck(url: Self.redacted(page.url), reason: "the login form has no enabled user name field"))
            }
            let submitter = login.submitters.first { !$0.isDisabled }.map(Self.key)
            try Self.requireSafeSubmission(of: login, submitter: submitter, on: page, origins: origins)
            login.controls[userIndex].value = username
            login.controls[passwordIndex].value = password
            return (login, submitter)
        }
        let wanted = consent == .approve ? approveButton : denyButton
        for form in forms {
            if let index = try? form.submitter(wanted) { return (form, Self.key(form.controls[index])) }
        }
        return nil
    }

    /// Throws unless submitting `form` with `submitter` (whose `formaction` and `formmethod`
    /// override the form's) would POST to one of `origins`; checked before any field is filled.
    static func requireSafeSubmission(of form: HTMLForm, submitter: String?, on page: Page, origins: ProviderOrigins) throws(OAuthError) {
        let request: HTTPRequest
        do {
            request = try form.request(submitter: submitter)
        } catch {
            throw OAuthError(.loginStuck(url: redacted(page.url), reason: "the login form cannot be submitted: \(error)"))
        }
        try origins.require(request.url, for: "login: the login form on \(redacted(page.url)) submits to")
        guard request.method == "POST" else {
            throw OAuthError(.loginStuck(url: redacted(page.url), reason: "the login form submits with GET: the password would travel in the URL"))
        }
    }

    /// How to name a submitter so `HTMLForm.submitter` finds exactly it.
    private static func key(_ control: FormControl) -> String {
        control.id ?? (control.text.isEmpty ? control.name : control.text)
    }

    /// A URL without its query (which may carry codes or tokens), for error messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        // Set as text after the fact: URLComponents would percent-encode the ellipsis.
        let hadQuery = components.query != nil
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return (components.string ?? "(a URL)") + (hadQuery ? "?…" : "")
    }
}
