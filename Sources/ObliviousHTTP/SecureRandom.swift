internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG, for ephemeral keys and response nonces.
enum SecureRandom {
    static func bytes(_ count: Int) throws(ObliviousHTTPError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let status = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard status == 1 else { throw .openSSL("RAND_bytes") }
        return output
    }
}
