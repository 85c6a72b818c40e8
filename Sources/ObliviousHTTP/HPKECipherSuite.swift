import WireFormat

extension HPKE {
    /// One KEM, KDF and AEAD used together.
    public struct CipherSuite: Sendable, Hashable, CustomStringConvertible {
        /// The key encapsulation mechanism.
        public var kem: KEM
        /// The key derivation function of the key schedule.
        public var kdf: KDF
        /// The authenticated encryption of messages.
        public var aead: AEAD

        /// A suite from its three algorithms.
        public init(kem: KEM = .x25519HKDFSHA256, kdf: KDF, aead: AEAD) {
            self.kem = kem
            self.kdf = kdf
            self.aead = aead
        }

        /// The suite with the given registry identifiers; throws `.unsupportedKEM`, `.unsupportedKDF`
        /// or `.unsupportedAEAD` for identifiers this implementation lacks.
        public init(kemID: UInt16, kdfID: UInt16, aeadID: UInt16) throws(ObliviousHTTPError) {
            guard let kem = KEM(rawValue: kemID) else { throw .unsupported(kemID: kemID) }
            guard let kdf = KDF(rawValue: kdfID) else { throw .unsupported(kdfID: kdfID) }
            guard let aead = AEAD(rawValue: aeadID) else { throw .unsupported(aeadID: aeadID) }
            self.init(kem: kem, kdf: kdf, aead: aead)
        }

        /// The three identifiers in hex.
        public var description: String {
            "HPKE(KEM 0x\(kem.rawValue.hex4), KDF 0x\(kdf.rawValue.hex4), AEAD 0x\(aead.rawValue.hex4))"
        }

        /// suite_id for the key schedule: "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2).
        var suiteID: [UInt8] {
            Array("HPKE".utf8) + kem.rawValue.bigEndianBytes + kdf.rawValue.bigEndianBytes + aead.rawValue.bigEndianBytes
        }
    }
}
