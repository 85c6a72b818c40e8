import Foundation

/// What a client keeps after sending one encapsulated request: it decrypts that request's
/// encapsulated response (RFC 9458 Section 4.4), and nothing else.
public struct OHTTPResponseDecapsulator: Sendable {
    let suite: HPKE.CipherSuite
    let enc: [UInt8]
    let secret: [UInt8]

    /// The binary HTTP response inside `response_nonce || ct`. Throws `.truncated` if it is too
    /// short to hold the nonce and tag, `.authenticationFailed` (releasing no plaintext) if it
    /// was altered or is not the answer to this request.
    public func decapsulate(_ encapsulatedResponse: Data) throws(ObliviousHTTPError) -> Data {
        let nonceLength = OHTTPMessage.responseNonceLength(suite)
        guard encapsulatedResponse.count >= nonceLength + suite.aead.tagLength else {
            throw ObliviousHTTPError(.truncated, "an encapsulated response of \(encapsulatedResponse.count) bytes cannot hold a \(nonceLength)-byte nonce and a tag")
        }
        let keys = try OHTTPMessage.responseKeys(suite: suite, secret: secret, enc: enc, responseNonce: Array(encapsulatedResponse.prefix(nonceLength)))
        // Read in place: a large response is not copied before it is opened.
        let result = encapsulatedResponse.withUnsafeBytes { raw in
            Result { () throws(ObliviousHTTPError) in
                try AEADCipher.open(suite.aead, key: keys.key, nonce: keys.nonce, aad: [], ciphertext: UnsafeRawBufferPointer(rebasing: raw[nonceLength...]))
            }
        }
        return try result.get()
    }
}
