/// Why a Privacy Pass challenge, key, token or issuance step was refused. One error for the module
/// over a private code, so new causes do not break callers; the description names the field.
package struct PrivacyPassError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Code: Hashable, Sendable {
        /// A `WWW-Authenticate`/`Proxy-Authenticate` value or a TokenChallenge that does not parse.
        case malformedChallenge(String)
        /// A token key (SPKI or P-384 element) that is not of the form the token type requires.
        case malformedKey(String)
        /// A Token, TokenRequest or TokenResponse of the wrong shape.
        case malformedMessage(String)
        /// The issuer's answer does not verify (signature, DLEQ proof): it is not used.
        case verificationFailed(String)
        /// A token type this client does not implement.
        case unsupportedTokenType(UInt16)
        /// An OpenSSL call failed (allocation, arithmetic) or the random generator gave nothing.
        case cryptoFailure(String)
    }

    package let code: Code

    package init(_ code: Code) { self.code = code }

    package static func malformedChallenge(_ why: String) -> Self { Self(.malformedChallenge(why)) }
    package static func malformedKey(_ why: String) -> Self { Self(.malformedKey(why)) }
    package static func malformedMessage(_ why: String) -> Self { Self(.malformedMessage(why)) }
    package static func verificationFailed(_ why: String) -> Self { Self(.verificationFailed(why)) }
    package static func unsupportedTokenType(_ type: UInt16) -> Self { Self(.unsupportedTokenType(type)) }
    package static func cryptoFailure(_ why: String) -> Self { Self(.cryptoFailure(why)) }

    package var description: String {
        switch code {
        case .malformedChallenge(let why): return "Privacy Pass: malformed PrivateToken challenge: \(why)"
        case .malformedKey(let why): return "Privacy Pass: malformed token key: \(why)"
        case .malformedMessage(let why): return "Privacy Pass: malformed message: \(why)"
        case .verificationFailed(let why): return "Privacy Pass: the issuer's response does not verify: \(why)"
        case .unsupportedTokenType(let type): return "Privacy Pass: token type 0x\(String(type, radix: 16)) is not supported"
        case .cryptoFailure(let why): return "Privacy Pass: cryptographic operation failed: \(why)"
        }
    }
}
