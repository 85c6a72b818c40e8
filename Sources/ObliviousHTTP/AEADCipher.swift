import Foundation
internal import COpenSSL

/// One-shot AEAD seal and open (RFC 5116 shape: ciphertext || tag) for the HPKE AEADs, on
/// OpenSSL's EVP_CIPHER with the EVP_CTRL_AEAD_* controls.
enum AEADCipher {
    static func seal(_ aead: HPKE.AEAD, key: [UInt8], nonce: [UInt8], aad: [UInt8],
                     plaintext: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let context = try CipherContext(aead, key: key, nonce: nonce, encrypting: true)
        try context.authenticate(aad)
        var output = try context.update(plaintext)
        try context.finish()
        output += try context.tag(length: aead.tagLength)
        return output
    }

    /// The plaintext, or `.authenticationFailed` with nothing released if the tag does not verify.
    static func open(_ aead: HPKE.AEAD, key: [UInt8], nonce: [UInt8], aad: [UInt8],
                     ciphertext: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(0, ciphertext.count - aead.tagLength))
        let result = ciphertext.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { buffer in
                Result { () throws(ObliviousHTTPError) in try open(aead, key: key, nonce: nonce, aad: aad, input, into: buffer) }
            }
        }
        try result.get()
        return output
    }

    /// The plaintext of `ciphertext` (read in place), as `open` above: for large messages, with
    /// no copy of the input and one output buffer.
    static func open(_ aead: HPKE.AEAD, key: [UInt8], nonce: [UInt8], aad: [UInt8],
                     ciphertext: UnsafeRawBufferPointer) throws(ObliviousHTTPError) -> Data {
        var output = Data(count: max(0, ciphertext.count - aead.tagLength))
        let result = output.withUnsafeMutableBytes { buffer in
            Result { () throws(ObliviousHTTPError) in try open(aead, key: key, nonce: nonce, aad: aad, ciphertext, into: buffer) }
        }
        try result.get()
        return output
    }

    /// Decrypts `ciphertext` (its tag last) into `output`, which holds exactly the plaintext.
    private static func open(_ aead: HPKE.AEAD, key: [UInt8], nonce: [UInt8], aad: [UInt8], _ ciphertext: UnsafeRawBufferPointer,
                             into output: UnsafeMutableRawBufferPointer) throws(ObliviousHTTPError) {
        guard ciphertext.count >= aead.tagLength else {
            throw ObliviousHTTPError(.truncated, "a ciphertext of \(ciphertext.count) bytes is shorter than its \(aead.tagLength)-byte tag")
        }
        let split = ciphertext.count - aead.tagLength
        let context = try CipherContext(aead, key: key, nonce: nonce, encrypting: false)
        try context.authenticate(aad)
        try context.update(UnsafeRawBufferPointer(rebasing: ciphertext[..<split]), into: output)
        try context.setExpectedTag(Array(ciphertext[split...]))
        guard context.finishDecryption() else {
            output.initializeMemory(as: UInt8.self, repeating: 0)  // nothing released
            throw ObliviousHTTPError(.authenticationFailed, "the \(aead) tag does not verify")
        }
    }
}

/// Owns one `EVP_CIPHER_CTX`, keyed for a single message, and frees it.
private final class CipherContext {
    private let pointer: OpaquePointer

    init(_ aead: HPKE.AEAD, key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(ObliviousHTTPError) {
        guard key.count == aead.keyLength, nonce.count == aead.nonceLength else {
            throw ObliviousHTTPError(.invalidLength, "\(aead) takes a \(aead.keyLength)-byte key and \(aead.nonceLength)-byte nonce")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        pointer = context
        let cipher: OpaquePointer?
        switch aead {
        case .aes128GCM: cipher = EVP_aes_128_gcm()
        case .aes256GCM: cipher = EVP_aes_256_gcm()
        case .chaCha20Poly1305: cipher = EVP_chacha20_poly1305()
        }
        let mode: Int32 = encrypting ? 1 : 0
        guard EVP_CipherInit_ex(context, cipher, nil, nil, nil, mode) == 1 else { throw .openSSL("EVP_CipherInit_ex") }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1 else {
            throw .openSSL("EVP_CTRL_AEAD_SET_IVLEN")
        }
        let status = key.withUnsafeBufferPointer { keyBuffer in
            nonce.withUnsafeBufferPointer { nonceBuffer in
                EVP_CipherInit_ex(context, nil, nil, keyBuffer.baseAddress, nonceBuffer.baseAddress, mode)
            }
        }
        guard status == 1 else { throw .openSSL("EVP_CipherInit_ex(key, nonce)") }
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    func authenticate(_ aad: [UInt8]) throws(ObliviousHTTPError) {
        guard !aad.isEmpty else { return }
        guard aad.count < Int(Int32.max) else { throw ObliviousHTTPError(.invalidLength, "associated data too large for one AEAD call") }
        var written: Int32 = 0
        // A nil output buffer tells OpenSSL these bytes are associated data.
        let status = aad.withUnsafeBufferPointer { EVP_CipherUpdate(pointer, nil, &written, $0.baseAddress, Int32($0.count)) }
        guard status == 1 else { throw .openSSL("EVP_CipherUpdate(aad)") }
    }

    func update(_ input: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count)
        let result = input.withUnsafeBytes { inBuffer in
            output.withUnsafeMutableBytes { outBuffer in Result { () throws(ObliviousHTTPError) in try update(inBuffer, into: outBuffer) } }
        }
        try result.get()
        return output
    }

    /// Encrypts or decrypts `input` into the start of `output` (at least as long).
    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ObliviousHTTPError) {
        guard !input.isEmpty else { return }
        guard input.count < Int(Int32.max) else { throw ObliviousHTTPError(.invalidLength, "message too large for one AEAD call") }
        var written: Int32 = 0
        let status = EVP_CipherUpdate(pointer, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                                      input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        guard status == 1, Int(written) == input.count else { throw .openSSL("EVP_CipherUpdate") }
    }

    func finish() throws(ObliviousHTTPError) {
        var scratch = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        let status = scratch.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(pointer, $0.baseAddress, &written) }
        guard status == 1, written == 0 else { throw .openSSL("EVP_CipherFinal_ex") }
    }

    /// Whether the tag set by `setExpectedTag` verified.
    func finishDecryption() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        let status = scratch.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(pointer, $0.baseAddress, &written) }
        if status != 1 { ERR_clear_error() }
        return status == 1 && written == 0
    }

    func tag(length: Int) throws(ObliviousHTTPError) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: length)
        let status = tag.withUnsafeMutableBytes { EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_AEAD_GET_TAG, Int32(length), $0.baseAddress) }
        guard status == 1 else { throw .openSSL("EVP_CTRL_AEAD_GET_TAG") }
        return tag
    }

    func setExpectedTag(_ tag: [UInt8]) throws(ObliviousHTTPError) {
        var tag = tag
        let status = tag.withUnsafeMutableBytes { EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_AEAD_SET_TAG, Int32($0.count), $0.baseAddress) }
        guard status == 1 else { throw .openSSL("EVP_CTRL_AEAD_SET_TAG") }
    }
}
