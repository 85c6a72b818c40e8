import Foundation
import WireFormat

/// An Oblivious Gateway's key configuration (RFC 9458 Section 3.1): a key identifier, a KEM and
/// its public key, and the KDF and AEAD pairs the gateway accepts. Parses and serializes single
/// configurations and the `application/ohttp-keys` list format (Section 3.2).
public struct OHTTPKeyConfig: Sendable, Hashable {
    /// One KDF and AEAD pair, by registry identifier; identifiers this implementation does not
    /// know are kept so a configuration serializes back as it was.
    public struct SymmetricAlgorithm: Sendable, Hashable, CustomStringConvertible {
        /// The KDF's registry identifier.
        public var kdfID: UInt16
        /// The AEAD's registry identifier.
        public var aeadID: UInt16

        /// A pair by identifiers, known or not.
        public init(kdfID: UInt16, aeadID: UInt16) {
            self.kdfID = kdfID
            self.aeadID = aeadID
        }

        /// A pair of supported algorithms.
        public init(kdf: HPKE.KDF, aead: HPKE.AEAD) {
            self.init(kdfID: kdf.rawValue, aeadID: aead.rawValue)
        }

        /// The KDF, if this implementation supports it.
        public var kdf: HPKE.KDF? { HPKE.KDF(rawValue: kdfID) }
        /// The AEAD, if this implementation supports it.
        public var aead: HPKE.AEAD? { HPKE.AEAD(rawValue: aeadID) }

        /// Both identifiers in hex.
        public var description: String { "(KDF 0x\(kdfID.hex4), AEAD 0x\(aeadID.hex4))" }
    }

    /// Names this configuration's key in encapsulated requests.
    public let keyID: UInt8
    /// The KEM, and so the public key's length.
    public let kem: HPKE.KEM
    /// The gateway's public key (SerializePublicKey).
    public let publicKey: Data
    /// The KDF and AEAD pairs the gateway accepts, in its order of preference.
    public let algorithms: [SymmetricAlgorithm]

    /// The KEM's registry identifier.
    public var kemID: UInt16 { kem.rawValue }

    /// Throws `.invalidKeyConfiguration` unless the public key has the KEM's length and there is
    /// at least one algorithm pair, and the encoding fits the 2-byte lengths of both formats.
    public init(keyID: UInt8, kem: HPKE.KEM = .x25519HKDFSHA256, publicKey: Data,
                algorithms: [SymmetricAlgorithm]) throws(ObliviousHTTPError) {
        guard publicKey.count == kem.publicKeyLength else {
            throw ObliviousHTTPError(.invalidKeyConfiguration, "a \(kem) public key has \(kem.publicKeyLength) bytes, not \(publicKey.count)")
        }
        // The list format prefixes the whole encoding with 2 bytes of length, which bounds the pairs.
        let maximumPairs = (Int(UInt16.max) - 1 - 2 - publicKey.count - 2) / 4
        guard !algorithms.isEmpty, algorithms.count <= maximumPairs else {
            throw ObliviousHTTPError(.invalidKeyConfiguration, "a key configuration needs 1 to \(maximumPairs) algorithm pairs, not \(algorithms.count)")
        }
        self.keyID = keyID
        self.kem = kem
        self.publicKey = publicKey
        self.algorithms = algorithms
    }

    /// Parses exactly one key configuration (Section 3.1 encoding). Throws `.unsupportedKEM` for
    /// a KEM this implementation lacks (its key length is then unknown), `.invalidKeyConfiguration`
    /// for anything malformed, truncated or followed by extra bytes.
    public init(parsing data: Data) throws(ObliviousHTTPError) {
        var reader = ByteReader(data)
        try self.init(reading: &reader)
        guard reader.isAtEnd else {
            throw ObliviousHTTPError(.invalidKeyConfiguration, "\(reader.remaining) bytes follow the key configuration")
        }
    }

    /// Parses an `application/ohttp-keys` list: configurations each prefixed by a 2-byte length.
    /// Configurations with an unsupported KEM are skipped; throws `.unsupportedKEM` if that leaves
    /// none, and `.invalidKeyConfiguration` for an empty or malformed list.
    public static func parseList(_ data: Data) throws(ObliviousHTTPError) -> [OHTTPKeyConfig] {
        var reader = ByteReader(data)
        var configs = [OHTTPKeyConfig]()
        var skipped: ObliviousHTTPError?
        while !reader.isAtEnd {
            let entry = try invalidIfTruncated { () throws(ObliviousHTTPError) in
                let length = try reader.readUInt16("a key configuration length")
                return try reader.readBytes(Int(length), "a key configuration")
            }
            do {
                configs.append(try OHTTPKeyConfig(parsing: Data(entry)))
            } catch where error.code == .unsupportedKEM {
                skipped = error
            }
        }
        if configs.isEmpty {
            throw skipped ?? ObliviousHTTPError(.invalidKeyConfiguration, "the key configuration list is empty")
        }
        return configs
    }

    /// The Section 3.1 encoding of this configuration.
    public func serialized() -> Data {
        var bytes = [keyID] + kemID.bigEndianBytes + Array(publicKey)
        bytes += UInt16(algorithms.count * 4).bigEndianBytes
        for algorithm in algorithms {
            bytes += algorithm.kdfID.bigEndianBytes + algorithm.aeadID.bigEndianBytes
        }
        return Data(bytes)
    }

    /// The `application/ohttp-keys` encoding of `configs`.
    public static func serializeList(_ configs: [OHTTPKeyConfig]) -> Data {
        var output = Data()
        for config in configs {
            let encoded = config.serialized()
            output += UInt16(encoded.count).bigEndianBytes
            output += encoded
        }
        return output
    }

    private init(reading reader: inout ByteReader) throws(ObliviousHTTPError) {
        let (keyID, kemID) = try Self.invalidIfTruncated { () throws(ObliviousHTTPError) in
            (try reader.readByte("the key identifier"), try reader.readUInt16("the KEM identifier"))
        }
        guard let kem = HPKE.KEM(rawValue: kemID) else { throw .unsupported(kemID: kemID) }
        let (publicKey, algorithms) = try Self.invalidIfTruncated { () throws(ObliviousHTTPError) in
            let publicKey = try reader.readBytes(kem.publicKeyLength, "the public key")
            let length = Int(try reader.readUInt16("the algorithms length"))
            guard length > 0, length % 4 == 0 else {
                throw ObliviousHTTPError(.invalidKeyConfiguration, "the algorithms length \(length) is not a positive multiple of 4")
            }
            var list = ByteReader(try reader.readData(length, "the symmetric algorithms"))
            var algorithms = [SymmetricAlgorithm]()
            while !list.isAtEnd {
                algorithms.append(SymmetricAlgorithm(kdfID: try list.readUInt16("a KDF identifier"),
                                                     aeadID: try list.readUInt16("an AEAD identifier")))
            }
            return (publicKey, algorithms)
        }
        try self.init(keyID: keyID, kem: kem, publicKey: Data(publicKey), algorithms: algorithms)
    }

    /// Running out of bytes inside a configuration makes the configuration invalid.
    private static func invalidIfTruncated<T>(_ body: () throws(ObliviousHTTPError) -> T) throws(ObliviousHTTPError) -> T {
        do {
            return try body()
        } catch where error.code == .truncated {
            throw ObliviousHTTPError(.invalidKeyConfiguration, "truncated key configuration: \(error.detail)")
        }
    }
}
