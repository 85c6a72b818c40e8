import Foundation

extension HPKE {
    /// A KEM private key with its public key: a gateway's long-term key, or an ephemeral key.
    public struct PrivateKey: Sendable {
        /// The KEM this key belongs to.
        public let kem: KEM
        let rawBytes: [UInt8]
        let publicKeyBytes: [UInt8]

        /// A key from its serialized form (SerializePrivateKey); throws `.invalidKey` for a wrong length.
        public init(rawRepresentation: Data, kem: KEM = .x25519HKDFSHA256) throws(ObliviousHTTPError) {
            try self.init(bytes: Array(rawRepresentation), kem: kem)
        }

        /// A fresh random key from OpenSSL's CSPRNG.
        public static func generate(kem: KEM = .x25519HKDFSHA256) throws(ObliviousHTTPError) -> PrivateKey {
            try PrivateKey(bytes: randomBytes(kem.privateKeyLength), kem: kem)
        }

        /// The key DeriveKeyPair(ikm) gives (RFC 9180 Section 7.1.3); `ikm` needs at least Nsk bytes
        /// of entropy. This is how RFC 9180's test vectors name their keys.
        public init(derivedFrom ikm: Data, kem: KEM = .x25519HKDFSHA256) throws(ObliviousHTTPError) {
            guard ikm.count >= kem.privateKeyLength else {
                throw ObliviousHTTPError(.invalidLength, "DeriveKeyPair needs at least \(kem.privateKeyLength) bytes of input keying material")
            }
            try self.init(bytes: DHKEM.derivePrivateKey(ikm: Array(ikm)), kem: kem)
        }

        init(bytes: [UInt8], kem: KEM) throws(ObliviousHTTPError) {
            self.kem = kem
            rawBytes = bytes
            publicKeyBytes = try X25519Key(privateKey: bytes).publicKeyBytes()
        }

        /// The serialized private key. Treat it as a secret.
        public var rawRepresentation: Data { Data(rawBytes) }

        /// The serialized public key (SerializePublicKey).
        public var publicKey: Data { Data(publicKeyBytes) }
    }
}
