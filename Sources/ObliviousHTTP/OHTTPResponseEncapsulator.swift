import Foundation

/// What a gateway keeps after decapsulating one request: it encrypts that request's response
/// (RFC 9458 Section 4.4).
public struct OHTTPResponseEncapsulator: Sendable {
    let suite: HPKE.CipherSuite
    let enc: [UInt8]
    let secret: [UInt8]

    /// `response_nonce || ct` for a binary HTTP response, with a fresh random nonce.
    public func encapsulate(_ response: Data) throws(ObliviousHTTPError) -> Data {
        try encapsulate(response, responseNonce: Data(randomBytes(OHTTPMessage.responseNonceLength(suite))))
    }

    /// The same with the given response nonce of max(Nn, Nk) bytes, for known-answer tests only.
    public func encapsulate(_ response: Data, responseNonce: Data) throws(ObliviousHTTPError) -> Data {
        let nonceLength = OHTTPMessage.responseNonceLength(suite)
        guard responseNonce.count == nonceLength else {
            throw ObliviousHTTPError(.invalidLength, "the response nonce must have \(nonceLength) bytes, not \(responseNonce.count)")
        }
        let keys = try OHTTPMessage.responseKeys(suite: suite, secret: secret, enc: enc, responseNonce: Array(responseNonce))
        let ciphertext = try AEADCipher.seal(suite.aead, key: keys.key, nonce: keys.nonce, aad: [], plaintext: Array(response))
        return responseNonce + Data(ciphertext)
    }
}
