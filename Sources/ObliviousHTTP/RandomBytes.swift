import CryptoPrimitives

/// `count` bytes from OpenSSL's CSPRNG, for ephemeral keys and response nonces.
func randomBytes(_ count: Int) throws(ObliviousHTTPError) -> [UInt8] {
    guard let bytes = SecureRandom.bytes(count) else { throw .openSSL("RAND_bytes") }
    return bytes
}
