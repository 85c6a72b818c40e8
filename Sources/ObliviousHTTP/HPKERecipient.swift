import Foundation

extension HPKE {
    /// The receiving side of a base-mode HPKE context (SetupBaseR): decrypts the sender's messages
    /// in the order they were sealed, and exports the same secrets.
    public struct Recipient: Sendable {
        /// The algorithms in use.
        public let suite: CipherSuite
        var context: HPKEContext

        /// The context for `encapsulatedKey` (enc) sent to `privateKey`'s owner. Throws `.invalidKey`
        /// for a malformed or low-order enc.
        public init(suite: CipherSuite, privateKey: PrivateKey, info: Data,
                    encapsulatedKey: Data) throws(ObliviousHTTPError) {
            try self.init(suite: suite, privateKey: privateKey, info: Array(info), enc: Array(encapsulatedKey))
        }

        init(suite: CipherSuite, privateKey: PrivateKey, info: [UInt8], enc: [UInt8]) throws(ObliviousHTTPError) {
            guard privateKey.kem == suite.kem else {
                throw ObliviousHTTPError(.invalidKey, "the private key is for \(privateKey.kem), the suite uses \(suite.kem)")
            }
            let sharedSecret = try DHKEM.decapsulate(enc: enc, recipientKey: privateKey)
            self.suite = suite
            context = try HPKEContext(suite: suite, sharedSecret: sharedSecret, info: info)
        }

        /// Open(aad, ct): the plaintext of the next message, or `.authenticationFailed` with no
        /// plaintext; a failed open does not advance the sequence number.
        public mutating func open(_ ciphertext: Data, authenticating aad: Data = Data()) throws(ObliviousHTTPError) -> Data {
            Data(try context.open(aad: Array(aad), ciphertext: Array(ciphertext)))
        }

        /// Export(exporter_context, L): the same secret the sender derives.
        public func exportSecret(context exporterContext: Data, length: Int) throws(ObliviousHTTPError) -> Data {
            Data(try context.export(context: Array(exporterContext), length: length))
        }
    }
}
