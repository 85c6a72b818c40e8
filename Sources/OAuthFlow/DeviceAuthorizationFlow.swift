import Foundation
import HeadlessPage
import RelayFetch

/// The device authorization grant (RFC 8628), run headless: the client asks for a device and
/// user code, the runner plays the user in a second ephemeral session of its own (sign in at the
/// verification URI, enter the user code, approve or deny), and the client polls the token
/// endpoint at the interval the provider asks for, slowing down when told to. The verification
/// URI, and every form the user code or the password goes into, must be on the provider's
/// origins; an ID token in the answer is verified as in the authorization code flow (no nonce:
/// the device grant has none).
public struct DeviceAuthorizationFlow: Sendable {
    public let client: OAuthClient
    public var driver: LoginDriver
    /// The device authorization endpoint, when discovery does not list it.
    public var endpoint: URL?
    /// Pages the user's session may pass through.
    public var maximumPages = 8
    /// Polls before giving up (the code's `expires_in` bounds them too).
    public var maximumPolls = 30
    /// The longest wait before a poll, whatever interval the provider asks for: one of days
    /// would only hold the flow open.
    public var maximumInterval: Double = 60

    public init(client: OAuthClient, driver: LoginDriver, endpoint: URL? = nil) {
        self.client = client
        self.driver = driver
        self.endpoint = endpoint
    }

    /// What the device authorization endpoint answered (RFC 8628 §3.2).
    public struct DeviceCode: Sendable {
        public let deviceCode: String
        public let userCode: String
        public let verificationURI: URL
        public let verificationURIComplete: URL?
        public let interval: Double
        public let expiresIn: Double

        /// The endpoint's answer (RFC 8628 §3.2); nil without a device code, user code or
        /// verification URI. An `interval` or `expires_in` that is not a finite number of seconds
        /// of at least 0 counts as absent: 5 s (the RFC's default) and 600 s.
        init?(json: JSONValue) {
            guard let deviceCode = json["device_code"]?.string, let userCode = json["user_code"]?.string,
                  let verification = json["verification_uri"]?.string.flatMap(URL.init(string:)) else { return nil }
            func seconds(_ name: String, default value: Double) -> Double {
                json[name]?.number.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? value
            }
            self.deviceCode = deviceCode
            self.userCode = userCode
            verificationURI = verification
            verificationURIComplete = json["verification_uri_complete"]?.string.flatMap(URL.init(string:))
            interval = seconds("interval", default: 5)
            expiresIn = seconds("expires_in", default: 600)
        }
    }

    /// What a completed grant yields.
    public struct Result: Sendable {
        public let tokens: TokenResponse
        /// The verified ID token, when the provider sent one.
        public let idToken: IDToken?
    }

    /// Runs the whole grant; returns the tokens once the user approved, with the ID token
    /// verified when there is one. The driver's approve and deny buttons are those of the
    /// provider's device confirmation page.
    public func run() async throws -> Result {
        let code = try await requestCode()
        // Polling starts before the user acts, as a real device's would; if the user's side
        // fails, leaving the scope cancels the poll.
        async let polled = poll(code)
        try await actAsUser(code)
        let tokens = try await polled
        guard let raw = tokens.idToken else { return Result(tokens: tokens, idToken: nil) }
        let validator = IDTokenValidator(issuer: client.provider.issuer, clientID: client.configuration.clientID, keys: try await client.keys())
        return Result(tokens: tokens, idToken: try validator.validate(raw, nonce: nil, accessToken: tokens.accessToken))
    }

    /// Asks for a device code (RFC 8628 §3.1).
    public func requestCode() async throws -> DeviceCode {
        guard let url = endpoint ?? client.provider.deviceAuthorizationEndpoint else {
            throw OAuthError(.configuration("the provider has no device authorization endpoint"))
        }
        let entries = [FormEntry("client_id", client.configuration.clientID),
                       FormEntry("scope", client.configuration.scopes.joined(separator: " "))]
        var request = HTTPRequest(url: url, method: "POST", headerFields: [("Content-Type", FormEncoding.urlEncoded.rawValue),
                                                                          ("Accept", "application/json")],
                                  body: Data(FormBodyEncoder.urlEncoded(entries).utf8))
        request.followsRedirects = false
        let (body, response) = try await client.session.data(for: request, recorder: client.recorder)
        let json = JSONValue.parse(body)
        guard response.statusCode == 200, let code = json.flatMap(DeviceCode.init(json:)) else {
            throw OAuthError(.tokenEndpoint(status: response.statusCode, error: json?["error"]?.string ?? "invalid device authorization response",
                                            description: json?["error_description"]?.string))
        }
        return code
    }

    /// Polls the token endpoint (RFC 8628 §3.4, §3.5) until the user decided or the code expired.
    public func poll(_ code: DeviceCode) async throws -> TokenResponse {
        var interval = code.interval
        let deadline = Date().addingTimeInterval(code.expiresIn)
        for _ in 0..<maximumPolls where Date() < deadline {
            // Never past the code's expiry, nor longer than `maximumInterval`.
            let wait = min(interval, maximumInterval, deadline.timeIntervalSinceNow)
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            do {
                return try await client.tokenRequest([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                                      ("device_code", code.deviceCode)])
            } catch let error as OAuthError {
                switch error.oauthErrorCode {
                case "authorization_pending": continue
                case "slow_down": interval += 5
                default: throw error
                }
            }
        }
        throw OAuthError(.tokenEndpoint(status: 400, error: "expired_token", description: "no decision after \(maximumPolls) polls"))
    }

    /// The user's side, in a fresh ephemeral session: sign in, enter the code, approve or deny.
    /// Throws `untrustedOrigin` before any request when the verification URI is not on the
    /// provider's origins, and before submitting the user code to a form that is not.
    public func actAsUser(_ code: DeviceCode) async throws {
        let origins = client.provider.origins
        try origins.require(code.verificationURI, for: "device grant: verification_uri is")
        if let complete = code.verificationURIComplete { try origins.require(complete, for: "device grant: verification_uri_complete is") }
        var configuration = client.session.configuration
        configuration.dataStore = .nonPersistent()
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let navigator = Navigator(session: session, recorder: client.recorder)
        var outcome = try await navigator.open(code.verificationURIComplete ?? code.verificationURI)
        var logins = 0
        for _ in 0..<maximumPages {
            guard let page = outcome.page else { throw OAuthError(.loginStuck(url: "(intercepted)", reason: "the device pages left the provider")) }
            if page.forms.isEmpty { return }
            if var entry = page.forms.first(where: { form in form.controls.contains { $0.name == "user_code" } }),
               !entry.controls.contains(where: { $0.type == "password" }) {
                let submitter = entry.submitters.first.map { $0.id ?? $0.text }
                try origins.require(try entry.request(submitter: submitter).url, for: "device grant: the user code form submits to")
                try entry.fill("user_code", with: code.userCode)
                outcome = try await navigator.submit(entry, submitter: submitter)
                continue
            }
            let (form, submitter) = try driver.action(on: page, loginsSoFar: logins, origins: origins)
            if form.controls.contains(where: { $0.type == "password" }) {
                logins += 1
                outcome = try await LoginSubmission.submit(form, submitter: submitter, through: navigator, origins: origins)
            } else {
                outcome = try await navigator.submit(form, submitter: submitter)
            }
        }
        throw OAuthError(.loginStuck(url: "(device pages)", reason: "still not done after \(maximumPages) pages"))
    }
}
