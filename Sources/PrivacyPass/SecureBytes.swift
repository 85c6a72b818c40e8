import CryptoPrimitives

/// Random bytes for nonces, salts and blinds (CryptoPrimitives' CSPRNG).
enum SecureBytes {
    static func random(_ count: Int) -> [UInt8]? { SecureRandom.bytes(count) }
}
