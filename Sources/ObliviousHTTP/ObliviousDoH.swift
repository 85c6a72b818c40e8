import Foundation
import WireFormat

/// The client side of Oblivious DNS over HTTPS (RFC 9230) on this module's HPKE: a target's
/// configuration (`ObliviousDoHConfigs`), queries sealed to it, and their responses opened.
public enum ObliviousDoH {
    /// The media type of sealed queries and responses.
    public static let mediaType = "application/oblivious-dns-message"

    /// One target key: its HPKE suite, public key and key id.
    public struct Config: Sendable, Hashable {
        public let suite: HPKE.CipherSuite
        public let publicKey: [UInt8]
        /// Expand(Extract("", contents), "odoh key id", Nh).
        public let keyID: [UInt8]

        /// The first version-1 configuration in an `ObliviousDoHConfigs` list whose KEM, KDF
        /// and AEAD this module supports; throws when there is none or the list is malformed.
        public static func firstSupported(in configs: Data) throws(ObliviousHTTPError) -> Config {
            var list = ByteReader(configs)
            let length = Int(try list.readUInt16("the ObliviousDoHConfigs length"))
            var reader = ByteReader(try list.readData(length, "the ObliviousDoHConfigs"))
            while !reader.isAtEnd {
                let version = try reader.readUInt16("an ObliviousDoHConfig version")
                let contents = try reader.readBytes(Int(try reader.readUInt16("an ObliviousDoHConfig length")), "an ObliviousDoHConfig")
                guard version == 0x0001, let config = try? Config(contents: contents) else { continue }
                return config
            }
            throw ObliviousHTTPError(.invalidKeyConfiguration, "no ObliviousDoHConfig of version 1 with a supported KEM, KDF and AEAD")
        }

        init(contents: [UInt8]) throws(ObliviousHTTPError) {
            var reader = ByteReader(contents)
            suite = try HPKE.CipherSuite(kemID: try reader.readUInt16("the KEM id"), kdfID: try reader.readUInt16("the KDF id"),
                                         aeadID: try reader.readUInt16("the AEAD id"))
            publicKey = try reader.readBytes(Int(try reader.readUInt16("the public key length")), "the public key")
            guard reader.isAtEnd else { throw ObliviousHTTPError(.invalidKeyConfiguration, "bytes after the ODoH public key") }
            keyID = try HKDF.expand(suite.kdf, prk: try HKDF.extract(suite.kdf, salt: [], ikm: contents), info: Array("odoh key id".utf8),
                                    length: suite.kdf.hashLength)
        }
    }

    /// Seals `dnsMessage` to `config` (RFC 9230 §6.4), padded with `padding` zero bytes: the
    /// `ObliviousDoHMessage` to POST, and what opens its response.
    public static func sealQuery(_ dnsMessage: [UInt8], to config: Config, padding: Int = 0) throws(ObliviousHTTPError) -> (message: Data, opener: ResponseOpener) {
        let plaintext = vector(dnsMessage) + vector([UInt8](repeating: 0, count: padding))
        var sender = try HPKE.Sender(suite: config.suite, recipientPublicKey: Data(config.publicKey), info: Data("odoh query".utf8))
        let aad = [0x01] + vector(config.keyID)
        let ciphertext = try sender.seal(Data(plaintext), authenticating: Data(aad))
        let secret = try sender.exportSecret(context: Data("odoh response".utf8), length: config.suite.aead.keyLength)
        let message = [0x01] + vector(config.keyID) + vector(Array(sender.encapsulatedKey) + Array(ciphertext))
        return (Data(message), ResponseOpener(suite: config.suite, secret: Array(secret), queryPlaintext: plaintext))
    }

    /// Opens the response to one sealed query, and nothing else.
    public struct ResponseOpener: Sendable {
        let suite: HPKE.CipherSuite
        let secret: [UInt8]
        let queryPlaintext: [UInt8]

        /// The DNS response inside an `ObliviousDoHMessage` of type response (RFC 9230 §6.5);
        /// throws `.authenticationFailed` (and returns no plaintext) when it was altered or answers another query.
        public func open(_ message: Data) throws(ObliviousHTTPError) -> [UInt8] {
            var reader = ByteReader(message)
            guard try reader.readByte("the message type") == 0x02 else {
                throw ObliviousHTTPError(.malformedMessage, "not an ObliviousDoHMessage response")
            }
            let nonce = try reader.readBytes(Int(try reader.readUInt16("the response nonce length")), "the response nonce")
            let sealed = try reader.readBytes(Int(try reader.readUInt16("the encrypted response length")), "the encrypted response")
            let prk = try HKDF.extract(suite.kdf, salt: queryPlaintext + ObliviousDoH.vector(nonce), ikm: secret)
            let key = try HKDF.expand(suite.kdf, prk: prk, info: Array("odoh key".utf8), length: suite.aead.keyLength)
            let iv = try HKDF.expand(suite.kdf, prk: prk, info: Array("odoh nonce".utf8), length: suite.aead.nonceLength)
            let plaintext = try AEADCipher.open(suite.aead, key: key, nonce: iv, aad: [0x02] + ObliviousDoH.vector(nonce), ciphertext: sealed)
            var inner = ByteReader(plaintext)
            return try inner.readBytes(Int(try inner.readUInt16("the DNS message length")), "the DNS message")
        }
    }

    /// A two-byte length, then the bytes.
    static func vector(_ bytes: [UInt8]) -> [UInt8] {
        UInt16(truncatingIfNeeded: bytes.count).bigEndianBytes + bytes
    }
}
