import Foundation

/// The client side of Oblivious HTTP (RFC 9458 Section 4.3): encapsulates `message/bhttp`
/// requests to one gateway key configuration, returning the context that decapsulates the answer.
public struct OHTTPClient: Sendable {
    /// The gateway configuration requests are encrypted to.
    public let keyConfig: OHTTPKeyConfig
    /// The suite chosen from it.
    public let suite: HPKE.CipherSuite

    /// Chooses `algorithm`, or else the configuration's first KDF and AEAD pair this
    /// implementation supports. Throws `.unsupportedKDF` or `.unsupportedAEAD` if there is none,
    /// or if `algorithm` is not offered by the configuration.
    public init(keyConfig: OHTTPKeyConfig, algorithm: OHTTPKeyConfig.SymmetricAlgorithm? = nil) throws(ObliviousHTTPError) {
        let offered = keyConfig.algorithms
        if let algorithm, !offered.contains(algorithm) {
            let code: ObliviousHTTPError.Code = offered.contains { $0.kdfID == algorithm.kdfID } ? .unsupportedAEAD : .unsupportedKDF
            throw ObliviousHTTPError(code, "the key configuration does not offer \(algorithm)")
        }
        let candidates = algorithm.map { [$0] } ?? offered
        guard let usable = candidates.first(where: { $0.kdf != nil && $0.aead != nil }) else {
            if !candidates.contains(where: { $0.kdf != nil }) {
                throw ObliviousHTTPError(.unsupportedKDF, "none of the configuration's KDFs \(candidates) is supported")
            }
            throw ObliviousHTTPError(.unsupportedAEAD, "none of the configuration's KDF and AEAD pairs \(candidates) is supported")
        }
        self.keyConfig = keyConfig
        suite = try HPKE.CipherSuite(kemID: keyConfig.kemID, kdfID: usable.kdfID, aeadID: usable.aeadID)
    }

    /// Encapsulates a binary HTTP request with a fresh ephemeral key: `hdr || enc || ct`, and the
    /// context for its response.
    public func encapsulate(_ request: Data) throws(ObliviousHTTPError) -> (encapsulatedRequest: Data, context: OHTTPResponseDecapsulator) {
        try encapsulate(request, ephemeralKey: HPKE.PrivateKey.generate(kem: suite.kem))
    }

    /// Encapsulates with the given ephemeral key, for known-answer tests only: reusing an
    /// ephemeral key links requests and breaks their confidentiality.
    public func encapsulate(_ request: Data, ephemeralKey: HPKE.PrivateKey) throws(ObliviousHTTPError) -> (encapsulatedRequest: Data, context: OHTTPResponseDecapsulator) {
        let header = OHTTPMessage.header(keyID: keyConfig.keyID, suite: suite)
        var sender = try HPKE.Sender(suite: suite, recipientPublicKey: Array(keyConfig.publicKey),
                                     info: OHTTPMessage.requestInfo(header: header), ephemeralKey: ephemeralKey)
        let ciphertext = try sender.context.seal(aad: [], plaintext: Array(request))
        let context = OHTTPResponseDecapsulator(suite: suite, enc: sender.enc,
                                                secret: try OHTTPMessage.responseSecret(exporting: sender.context))
        return (Data(header + sender.enc + ciphertext), context)
    }
}
