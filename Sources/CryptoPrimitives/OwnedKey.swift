internal import COpenSSL

/// An OpenSSL `EVP_PKEY` with one owner: freed when the owner goes.
package final class OwnedKey: @unchecked Sendable {
    // @unchecked: the key is only read after init (signing, verifying, deriving take it const).
    package let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    package init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}
