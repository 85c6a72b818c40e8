internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG: ephemeral keys, nonces, PKCE verifiers, state.
package enum SecureRandom {
    /// `count` random bytes; nil in the unlikely case the generator cannot give them.
    package static func bytes(_ count: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let status = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        return status == 1 ? output : nil
    }
}
