import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport
import CSSStyle

/// Forms submitted to a real server (the test identity provider's Django login page) through
/// relays A and B: CSRF cookie and token, Origin and Referer accepted, 302 after POST followed as GET,
/// urlencoded and multipart bodies both understood by Django.
final class FormSubmissionEndToEndTests: XCTestCase {
    private func loginPage(_ navigator: Navigator) async throws -> Page {
        let url = URL(string: IdentityProvider.origin + "/accounts/login/?next=/o/.well-known/jwks.json")!
        let outcome = try await navigator.open(url)
        let page = try XCTUnwrap(outcome.page)
        XCTAssertEqual(page.statusCode, 200)
        return page
    }

    private func navigator() throws -> Navigator {
        Navigator(session: try Session(configuration: try IdentityProvider.configuration()))
    }

    func testLoginFormSubmitsUrlencodedAndMultipart() async throws {
        for enctype in [nil, "multipart/form-data"] {
            let navigator = try navigator()
            defer { navigator.session.invalidate() }
            var form = try await loginPage(navigator).form("form#login")
            XCTAssertEqual(form.controls.map(\.name), ["csrfmiddlewaretoken", "username", "password", "next", ""])
            XCTAssertEqual(form.controls[1].labels, ["Username"])
            form.enctypeAttribute = enctype
            try form.fill("Username", with: IdentityProvider.username)
            try form.fill("password", with: IdentityProvider.password)
            let outcome = try await navigator.submit(form, submitter: "Sign in")
            let landed = try XCTUnwrap(outcome.page)
            XCTAssertEqual(landed.url.path, "/o/.well-known/jwks.json", "\(enctype ?? "urlencoded"): 302 after the POST, followed as GET")
            XCTAssertTrue(landed.text.contains("\"kty\": \"RSA\""), landed.text)
        }
    }

    func testWrongPasswordShowsTheFormAgainWithTheMessage() async throws {
        let navigator = try navigator()
        defer { navigator.session.invalidate() }
        var form = try await loginPage(navigator).forms[0]
        try form.fill("username", with: IdentityProvider.username)
        try form.fill("Password", with: "wrong")
        let outcome = try await navigator.submit(form)
        let again = try XCTUnwrap(outcome.page)
        XCTAssertEqual(URLComponents(url: again.url, resolvingAgainstBaseURL: false)?.path, "/accounts/login/")
        XCTAssertEqual(again.select("p.error").first?.normalizedText, "Your username and password did not match.")
        XCTAssertEqual(again.select("input[type=password], input[name=username]").count, 2)
    }

    /// Navigating to the redirect URI hands it back without a request; other URLs still load.
    func testRedirectURIIsHandedBackOtherURLsLoad() async throws {
        let navigator = Navigator(session: try Session(configuration: try IdentityProvider.configuration()),
                                  policy: .intercepting(redirectURI: URL(string: "com.example.app:/callback")!))
        defer { navigator.session.invalidate() }
        let login = try await loginPage(navigator)
        XCTAssertEqual(login.forms.count, 1)
        let outcome = try await navigator.open(URL(string: "com.example.app:/callback?code=x")!)
        XCTAssertEqual(outcome.interceptedURL?.absoluteString, "com.example.app:/callback?code=x")
    }
}
