internal import COpenSSL
import CryptoPrimitives

/// One OpenSSL `EVP_PKEY` holding an X25519 private or public key (owned by an `OwnedKey`).
final class X25519Key {
    static let length = 32
    private let key: OwnedKey

    /// A private key from its 32 raw bytes (RFC 7748 scalar; OpenSSL clamps it when used).
    convenience init(privateKey bytes: [UInt8]) throws(ObliviousHTTPError) {
        try self.init(bytes, kind: "private", call: "EVP_PKEY_new_raw_private_key", EVP_PKEY_new_raw_private_key)
    }

    /// A public key from its 32 raw bytes (the u-coordinate).
    convenience init(publicKey bytes: [UInt8]) throws(ObliviousHTTPError) {
        try self.init(bytes, kind: "public", call: "EVP_PKEY_new_raw_public_key", EVP_PKEY_new_raw_public_key)
    }

    private init(_ bytes: [UInt8], kind: String, call: String,
                 _ create: (Int32, OpaquePointer?, UnsafePointer<UInt8>?, Int) -> OpaquePointer?) throws(ObliviousHTTPError) {
        guard bytes.count == X25519Key.length else {
            throw ObliviousHTTPError(.invalidKey, "an X25519 \(kind) key has 32 bytes, not \(bytes.count)")
        }
        guard let key = bytes.withUnsafeBufferPointer({ create(EVP_PKEY_X25519, nil, $0.baseAddress, $0.count) }) else {
            throw .openSSL(call)
        }
        self.key = OwnedKey(taking: key)
    }

    /// The raw public key (SerializePublicKey).
    func publicKeyBytes() throws(ObliviousHTTPError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: X25519Key.length)
        var length = output.count
        let status = output.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_public_key(key.pointer, $0.baseAddress, &length) }
        guard status == 1, length == X25519Key.length else { throw .openSSL("EVP_PKEY_get_raw_public_key") }
        return output
    }

    /// DH(self, peer). OpenSSL refuses an all-zero result (a small-order peer key), which RFC 9180
    /// Section 7.1.4 requires rejecting; that surfaces as `.invalidKey`.
    func sharedSecret(with peer: X25519Key) throws(ObliviousHTTPError) -> [UInt8] {
        let context = try KeyDerivationContext(privateKey: self)
        return try context.derive(peer: peer)
    }

    /// The `EVP_PKEY` for calls that borrow it while this owner is alive.
    var borrowedPointer: OpaquePointer { key.pointer }
}

/// Owns one `EVP_PKEY_CTX` set up for key agreement with a given private key.
private final class KeyDerivationContext {
    private let pointer: OpaquePointer
    private let privateKey: X25519Key  // OpenSSL takes its own reference too; this keeps the owner obvious

    init(privateKey: X25519Key) throws(ObliviousHTTPError) {
        guard let context = EVP_PKEY_CTX_new(privateKey.borrowedPointer, nil) else { throw .openSSL("EVP_PKEY_CTX_new") }
        pointer = context
        self.privateKey = privateKey
        guard EVP_PKEY_derive_init(context) == 1 else { throw .openSSL("EVP_PKEY_derive_init") }
    }

    deinit { EVP_PKEY_CTX_free(pointer) }

    func derive(peer: X25519Key) throws(ObliviousHTTPError) -> [UInt8] {
        guard EVP_PKEY_derive_set_peer(pointer, peer.borrowedPointer) == 1 else { throw .openSSL("EVP_PKEY_derive_set_peer") }
        var output = [UInt8](repeating: 0, count: X25519Key.length)
        var length = output.count
        let status = output.withUnsafeMutableBufferPointer { EVP_PKEY_derive(pointer, $0.baseAddress, &length) }
        guard status == 1, length == X25519Key.length else {
            ERR_clear_error()
            throw ObliviousHTTPError(.invalidKey, "X25519 key agreement failed (a low-order public key gives an all-zero secret)")
        }
        return output
    }
}
