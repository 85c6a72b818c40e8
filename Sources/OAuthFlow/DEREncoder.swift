import Foundation

/// Just enough DER to hand JWK public keys to OpenSSL as SubjectPublicKeyInfo, and ES256's raw
/// r||s signatures as ECDSA-Sig-Value.
enum DEREncoder {
    static func sequence(_ parts: [Data]) -> Data { element(0x30, parts.reduce(Data(), +)) }

    /// An unsigned big-endian integer: leading zeros dropped, a zero added when the top bit is set.
    static func unsignedInteger(_ bytes: Data) -> Data {
        var value = Data(bytes.drop { $0 == 0 })
        if value.isEmpty || value.first! & 0x80 != 0 { value.insert(0, at: 0) }
        return element(0x02, value)
    }

    static func bitString(_ bytes: Data) -> Data { element(0x03, Data([0]) + bytes) }

    static let null = Data([0x05, 0x00])
    static let rsaEncryption = Data([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01])
    static let ecPublicKey = Data([0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
    static let prime256v1 = Data([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
    static let ed25519 = Data([0x06, 0x03, 0x2B, 0x65, 0x70])

    static func element(_ tag: UInt8, _ content: Data) -> Data {
        var result = Data([tag])
        let count = content.count
        if count < 0x80 {
            result.append(UInt8(count))
        } else {
            let bytes = withUnsafeBytes(of: UInt32(count).bigEndian) { Data($0) }.drop { $0 == 0 }
            result.append(0x80 | UInt8(bytes.count))
            result.append(contentsOf: bytes)
        }
        return result + content
    }
}
