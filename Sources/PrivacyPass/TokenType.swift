/// The token types of RFC 9578 this module issues and redeems, with their sizes.
package enum TokenType: UInt16, Sendable, CaseIterable {
    /// VOPRF(P-384, SHA-384): privately verifiable, the issuer alone checks it.
    case privateP384 = 0x0001
    /// Blind RSA (2048-bit), RSABSSA-SHA384-PSS-Deterministic: anyone with the key checks it.
    case publicRSA2048 = 0x0002

    /// Nk: the authenticator's length in a Token.
    package var authenticatorLength: Int {
        switch self {
        case .privateP384: return 48
        case .publicRSA2048: return 256
        }
    }

    /// The blinded message's length in a TokenRequest (Ne or Nk).
    package var blindedMessageLength: Int {
        switch self {
        case .privateP384: return 49
        case .publicRSA2048: return 256
        }
    }

    /// The TokenResponse's length: evaluated element and proof, or the blind signature.
    package var responseLength: Int {
        switch self {
        case .privateP384: return 49 + 96
        case .publicRSA2048: return 256
        }
    }
}
