/// Why a hop's Privacy Pass issuer gave no token for a relay's challenge: the issuer (host:port,
/// never a token or an attestation) and what went wrong, so a failed issuance reads as itself
/// rather than as the relay's 407.
package struct TokenIssuanceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Reason: Sendable, Hashable {
        /// No answer: the route to the issuer failed, or it did not answer in time.
        case unreachable(String)
        /// The issuer answered the directory or token request with a non-200 status.
        case refused(status: Int)
        /// The directory or TokenResponse is unusable: too large, malformed, or does not verify.
        case badResponse(String)
        /// None of the relay's challenges can be answered with this issuer's keys.
        case noUsableChallenge(String)
        /// The identity provider that attests for the client gave no access token for the request.
        case attestationUnavailable(String)
    }

    /// The issuer's host:port.
    package let issuer: String
    package let reason: Reason

    package init(issuer: String, reason: Reason) {
        self.issuer = issuer
        self.reason = reason
    }

    package var description: String {
        let why: String
        switch reason {
        case .unreachable(let detail): why = "issuer unreachable: \(detail)"
        case .refused(let status): why = "issuer refused the request: \(status)"
        case .badResponse(let detail): why = "bad answer from the issuer: \(detail)"
        case .noUsableChallenge(let detail): why = "no challenge this issuer can answer: \(detail)"
        case .attestationUnavailable(let detail): why = "no attestation from the identity provider: \(detail)"
        }
        return "no Privacy Pass token from issuer \(issuer): \(why)"
    }
}
