import Foundation

extension HPKE {
    /// The sending side of a base-mode HPKE context (SetupBaseS): encrypts messages in order to one
    /// recipient public key, and exports secrets. `encapsulatedKey` (enc) goes to the recipient.
    public struct Sender: Sendable {
        /// The algorithms in use.
        public let suite: CipherSuite
        /// enc: the encapsulated ephemeral public key the recipient needs.
        public var encapsulatedKey: Data { Data(enc) }

        let enc: [UInt8]
        var context: HPKEContext

        /// A context with a fresh random ephemeral key. Throws `.invalidKey` for a malformed
        /// recipient key.
        public init(suite: CipherSuite, recipientPublicKey: Data, info: Data) throws(ObliviousHTTPError) {
            try self.init(suite: suite, recipientPublicKey: Array(recipientPublicKey), info: Array(info),
                          ephemeralKey: PrivateKey.generate(kem: suite.kem))
        }

        /// A context with the given ephemeral key, for known-answer tests only: reusing an
        /// ephemeral key across messages destroys HPKE's confidentiality.
        public init(suite: CipherSuite, recipientPublicKey: Data, info: Data,
                    ephemeralKey: PrivateKey) throws(ObliviousHTTPError) {
            try self.init(suite: suite, recipientPublicKey: Array(recipientPublicKey), info: Array(info), ephemeralKey: ephemeralKey)
        }

        init(suite: CipherSuite, recipientPublicKey: [UInt8], info: [UInt8],
             ephemeralKey: PrivateKey) throws(ObliviousHTTPError) {
            guard ephemeralKey.kem == suite.kem else {
                throw ObliviousHTTPError(.invalidKey, "the ephemeral key is for \(ephemeralKey.kem), the suite uses \(suite.kem)")
            }
            let (sharedSecret, enc) = try DHKEM.encapsulate(recipientPublicKey: recipientPublicKey, ephemeralKey: ephemeralKey)
            self.suite = suite
            self.enc = enc
            context = try HPKEContext(suite: suite, sharedSecret: sharedSecret, info: info)
        }

        /// Seal(aad, pt): the ciphertext (with its tag) of the next message in sequence.
        public mutating func seal(_ plaintext: Data, authenticating aad: Data = Data()) throws(ObliviousHTTPError) -> Data {
            Data(try context.seal(aad: Array(aad), plaintext: Array(plaintext)))
        }

        /// Export(exporter_context, L): a secret both sides can derive; `length` is at most 255 * Nh.
        public func exportSecret(context exporterContext: Data, length: Int) throws(ObliviousHTTPError) -> Data {
            Data(try context.export(context: Array(exporterContext), length: length))
        }
    }
}
