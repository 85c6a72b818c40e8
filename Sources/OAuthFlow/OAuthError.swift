import Foundation

/// Why an OAuth flow failed, or a scenario file could not be used: the module's one error. Each
/// failed check has its own code, and the description names the step (discovery, authorization,
/// token, ID token, userinfo) and the cause. Secrets (codes, tokens, client secrets, passwords)
/// never appear in it.
///
/// `code` is an open set, as `FetchError.Code` is (a struct of static values, so a new check is
/// a new value and no client's `switch` stops compiling): compare with `==` or match with a
/// `default:`. The values of a condition are properties (`status`, `url`, `oauthErrorCode`,
/// `file`, `path`); `Detail` holds them inside the package, where the text is written.
public struct OAuthError: Error, Sendable, CustomStringConvertible, Equatable {
    package enum Detail: Sendable, Equatable {
        /// The discovery document or JWKS could not be fetched or read.
        case discovery(String)
        /// The provider answered the authorization request with an OAuth error (e.g. access_denied).
        case authorizationDenied(error: String, description: String?)
        /// The redirect's `state` is not the one sent.
        case stateMismatch
        /// The redirect's `iss` (RFC 9207) is not the provider's issuer.
        case issuerMismatch(String)
        /// The redirect has no `iss`, though the provider's metadata says it sends one (RFC 9207
        /// §2.4: a client must then reject a response without it).
        case missingIssuer
        /// A password, user code or endpoint would go to an origin that is not the provider's.
        case untrustedOrigin(what: String, url: String, trusted: String)
        /// The redirect carried neither a code nor an error.
        case missingCode
        /// The login never reached the redirect URI: the user agent stopped on this page.
        case loginStuck(url: String, reason: String)
        /// The token endpoint refused (status, OAuth error code and description).
        case tokenEndpoint(status: Int, error: String?, description: String?)
        /// The token response lacks a field the flow needs.
        case invalidTokenResponse(String)
        /// An ID token check failed.
        case idToken(IDTokenCheck)
        /// The userinfo endpoint failed or its `sub` differs from the ID token's.
        case userinfo(String)
        /// A configuration problem (no endpoint, no secret for the chosen method).
        case configuration(String)
        /// A scenario's expectation did not hold.
        case expectation(String)
        /// A scenario file that cannot be used: the file, the JSON path and why.
        case scenarioFile(file: String, path: String, reason: String)
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    public var description: String {
        switch detail {
        case .discovery(let why): return "discovery: \(why)"
        case .authorizationDenied(let error, let description):
            return "authorization: the provider answered \(error)" + (description.map { " (\($0))" } ?? "")
        case .stateMismatch: return "authorization: the redirect's state is not the one sent (possible CSRF)"
        case .issuerMismatch(let issuer): return "authorization: the redirect's iss \"\(issuer)\" is not the provider's issuer"
        case .missingIssuer:
            return "authorization: the redirect has no iss, though the provider's metadata says it sends one (RFC 9207)"
        case .untrustedOrigin(let what, let url, let trusted):
            return "\(what) \(url), which is not one of the provider's https origins (\(trusted)); "
                + "if it belongs to the provider, list its origin in the scenario's providerOrigins"
        case .missingCode: return "authorization: the redirect carried no code and no error"
        case .loginStuck(let url, let reason): return "login: stopped at \(url): \(reason)"
        case .tokenEndpoint(let status, let error, let description):
            return "token endpoint: HTTP \(status)" + (error.map { " \($0)" } ?? "") + (description.map { " (\($0))" } ?? "")
        case .invalidTokenResponse(let why): return "token endpoint: \(why)"
        case .idToken(let check): return "ID token: \(check)"
        case .userinfo(let why): return "userinfo: \(why)"
        case .configuration(let why): return "configuration: \(why)"
        case .expectation(let why): return "expected \(why)"
        case .scenarioFile(let file, let path, let reason): return "\(file): \(path) \(reason)"
        }
    }
}

/// One ID token (or JWS) check that failed, by name: the detail of `OAuthError.Code.idToken`,
/// which its description names.
package enum IDTokenCheck: Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupportedAlgorithm(String)
    case unknownKey(kid: String?)
    case signature
    case issuer(expected: String, actual: String?)
    case audience(expected: String, actual: [String])
    case authorizedParty(String?)
    case expired(expiredAt: Double, now: Double)
    case issuedAt(String)
    case nonce
    case accessTokenHash
    case codeHash
    /// A claim of an ID token issued on refresh differs from the original ID token's (OIDC
    /// Core §12.2: `iss`, `sub`, `aud` and `azp` must stay the same).
    case changedOnRefresh(claim: String)

    package var description: String {
        switch self {
        case .malformed(let why): return "malformed (\(why))"
        case .unsupportedAlgorithm(let alg): return "unsupported signing algorithm \"\(alg)\""
        case .unknownKey(let kid): return "no key in the provider's JWKS matches kid \(kid.map { "\"\($0)\"" } ?? "(none)")"
        case .signature: return "signature does not verify against the provider's key"
        case .issuer(let expected, let actual): return "iss \(actual.map { "\"\($0)\"" } ?? "missing") is not \"\(expected)\""
        case .audience(let expected, let actual): return "aud \(actual) does not contain \"\(expected)\""
        case .authorizedParty(let azp): return "azp \(azp.map { "\"\($0)\"" } ?? "missing") is not the client (several audiences)"
        case .expired(let expiredAt, let now): return "expired at \(Self.seconds(expiredAt)) (now \(Self.seconds(now)))"
        case .issuedAt(let why): return "iat \(why)"
        case .nonce: return "nonce is not the one sent"
        case .accessTokenHash: return "at_hash does not match the access token"
        case .codeHash: return "c_hash does not match the code"
        case .changedOnRefresh(let claim): return "\(claim) of the refreshed ID token is not the original ID token's"
        }
    }

    /// Whole seconds when they fit an `Int`, else the number as it is: a token's `exp` may be
    /// any JSON number (-1e300 trapped the conversion).
    private static func seconds(_ value: Double) -> String {
        Int(exactly: value.rounded(.down)).map(String.init) ?? "\(value)"
    }
}
