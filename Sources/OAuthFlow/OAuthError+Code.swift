extension OAuthError {
    /// Which condition an `OAuthError` is: an open set of named values (see `OAuthError`). Its
    /// `description` is the name, stable for logs and scripts.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// The discovery document or JWKS could not be fetched or read.
        public static let discovery = Code("discovery")
        /// The provider answered the authorization request with an OAuth error (`oauthErrorCode`).
        public static let authorizationDenied = Code("authorizationDenied")
        /// The redirect's `state` is not the one sent.
        public static let stateMismatch = Code("stateMismatch")
        /// The redirect's `iss` (RFC 9207) is not the provider's issuer.
        public static let issuerMismatch = Code("issuerMismatch")
        /// The redirect has no `iss`, though the provider's metadata says it sends one.
        public static let missingIssuer = Code("missingIssuer")
        /// A password, user code or endpoint would go to `url`, an origin that is not the provider's.
        public static let untrustedOrigin = Code("untrustedOrigin")
        /// The redirect carried neither a code nor an error.
        public static let missingCode = Code("missingCode")
        /// The login never reached the redirect URI: the user agent stopped at `url`.
        public static let loginStuck = Code("loginStuck")
        /// The token endpoint refused with `status` (and `oauthErrorCode`, when it sent one).
        public static let tokenEndpoint = Code("tokenEndpoint")
        /// The token response lacks a field the flow needs.
        public static let invalidTokenResponse = Code("invalidTokenResponse")
        /// An ID token check failed (the description names it).
        public static let idToken = Code("idToken")
        /// The userinfo endpoint failed or its `sub` differs from the ID token's.
        public static let userinfo = Code("userinfo")
        /// A configuration problem (no endpoint, no secret for the chosen method).
        public static let configuration = Code("configuration")
        /// A scenario's expectation did not hold.
        public static let expectation = Code("expectation")
        /// A scenario file that cannot be used (`file`, `path`).
        public static let scenarioFile = Code("scenarioFile")
    }

    public var code: Code {
        switch detail {
        case .discovery: return .discovery
        case .authorizationDenied: return .authorizationDenied
        case .stateMismatch: return .stateMismatch
        case .issuerMismatch: return .issuerMismatch
        case .missingIssuer: return .missingIssuer
        case .untrustedOrigin: return .untrustedOrigin
        case .missingCode: return .missingCode
        case .loginStuck: return .loginStuck
        case .tokenEndpoint: return .tokenEndpoint
        case .invalidTokenResponse: return .invalidTokenResponse
        case .idToken: return .idToken
        case .userinfo: return .userinfo
        case .configuration: return .configuration
        case .expectation: return .expectation
        case .scenarioFile: return .scenarioFile
        }
    }

    /// The OAuth error code the provider sent (`access_denied`, `invalid_grant`, ...), if any.
    public var oauthErrorCode: String? {
        switch detail {
        case .authorizationDenied(let error, _): return error
        case .tokenEndpoint(_, let error, _): return error
        default: return nil
        }
    }

    /// The HTTP status the token endpoint refused with (`tokenEndpoint`).
    public var status: Int? {
        if case .tokenEndpoint(let status, _, _) = detail { return status }
        return nil
    }

    /// The URL the flow would not send to (`untrustedOrigin`) or stopped at (`loginStuck`),
    /// redacted as the description shows it.
    public var url: String? {
        switch detail {
        case .untrustedOrigin(_, let url, _), .loginStuck(let url, _): return url
        default: return nil
        }
    }

    /// The scenario file that cannot be used (`scenarioFile`).
    public var file: String? {
        if case .scenarioFile(let file, _, _) = detail { return file }
        return nil
    }

    /// Where in the scenario file (`scenarioFile`): a JSON path such as `$.login.username`.
    public var path: String? {
        if case .scenarioFile(_, let path, _) = detail { return path }
        return nil
    }
}
