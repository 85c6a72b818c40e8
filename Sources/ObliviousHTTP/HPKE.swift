/// Hybrid Public Key Encryption (RFC 9180), base mode, over OpenSSL: the algorithm identifiers,
/// the cipher suite, keys, and the sender and recipient contexts.
public enum HPKE {
    /// Key encapsulation mechanisms (RFC 9180 Section 7.1).
    public enum KEM: UInt16, Sendable, Hashable, CaseIterable {
        /// DHKEM(X25519, HKDF-SHA256).
        case x25519HKDFSHA256 = 0x0020

        /// Length of an encapsulated key (Nenc).
        public var encapsulatedKeyLength: Int { 32 }
        /// Length of a serialized public key (Npk).
        public var publicKeyLength: Int { 32 }
        /// Length of a serialized private key (Nsk).
        public var privateKeyLength: Int { 32 }
        /// Length of the KEM shared secret (Nsecret).
        var sharedSecretLength: Int { 32 }
        /// The KDF the KEM itself uses for ExtractAndExpand and DeriveKeyPair.
        var kdf: KDF { .hkdfSHA256 }
    }

    /// Key derivation functions (RFC 9180 Section 7.2).
    public enum KDF: UInt16, Sendable, Hashable, CaseIterable {
        case hkdfSHA256 = 0x0001
        case hkdfSHA384 = 0x0002
        case hkdfSHA512 = 0x0003

        /// Output length of Extract (Nh).
        public var hashLength: Int {
            switch self {
            case .hkdfSHA256: return 32
            case .hkdfSHA384: return 48
            case .hkdfSHA512: return 64
            }
        }

        /// The digest name OpenSSL's HKDF takes.
        var digestName: StaticString {
            switch self {
            case .hkdfSHA256: return "SHA256"
            case .hkdfSHA384: return "SHA384"
            case .hkdfSHA512: return "SHA512"
            }
        }
    }

    /// Authenticated encryption algorithms (RFC 9180 Section 7.3).
    public enum AEAD: UInt16, Sendable, Hashable, CaseIterable {
        case aes128GCM = 0x0001
        case aes256GCM = 0x0002
        case chaCha20Poly1305 = 0x0003

        /// Key length (Nk).
        public var keyLength: Int {
            switch self {
            case .aes128GCM: return 16
            case .aes256GCM, .chaCha20Poly1305: return 32
            }
        }

        /// Nonce length (Nn).
        public var nonceLength: Int { 12 }

        /// Authentication tag length (Nt).
        public var tagLength: Int { 16 }
    }
}
