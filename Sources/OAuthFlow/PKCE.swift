import Foundation
import CryptoPrimitives

/// Proof Key for Code Exchange (RFC 7636): a fresh verifier and its challenge.
public struct PKCE: Sendable, Equatable {
    public enum Method: String, Sendable {
        case s256 = "S256"
        /// Only when a provider cannot do S256 (the verifier travels in the clear).
        case plain
    }

    public let verifier: String
    public let method: Method

    /// A verifier of 43 characters from 32 random bytes.
    public init(method: Method = .s256) {
        self.init(verifier: OAuthRandom.token(32), method: method)
    }

    public init(verifier: String, method: Method) {
        self.verifier = verifier
        self.method = method
    }

    /// `code_challenge`: base64url(SHA-256(verifier)) for S256, the verifier for plain.
    public var challenge: String {
        switch method {
        case .s256: return Base64URL.encode(Data(Digest.of(Data(verifier.utf8), .sha256)))
        case .plain: return verifier
        }
    }
}

/// Unguessable values for `state`, `nonce` and PKCE verifiers.
enum OAuthRandom {
    /// base64url of `count` random bytes from OpenSSL; a failing generator stops the process
    /// rather than hand out guessable values.
    static func token(_ count: Int) -> String {
        guard let bytes = SecureRandom.bytes(count).map({ Data($0) }) else { fatalError("OpenSSL's random generator failed") }
        return Base64URL.encode(bytes)
    }
}
