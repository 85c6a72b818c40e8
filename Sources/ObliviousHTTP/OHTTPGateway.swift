import Foundation

/// The gateway side of Oblivious HTTP (RFC 9458 Sections 4.3 and 4.4): decapsulates requests
/// sent to any of its keys and encapsulates the responses.
public struct OHTTPGateway: Sendable {
    /// The keys requests may name, each with its own key identifier.
    public let keys: [OHTTPGatewayKey]

    /// A gateway answering to `keys`; key identifiers should be distinct (the first match wins).
    public init(keys: [OHTTPGatewayKey]) {
        self.keys = keys
    }

    /// The `application/ohttp-keys` document for these keys.
    public var keyConfigurations: Data { OHTTPKeyConfig.serializeList(keys.map(\.keyConfig)) }

    /// The binary HTTP request inside `hdr || enc || ct`, and the context to answer it. Throws
    /// `.truncated`, `.unknownKeyID`, `.unsupportedKEM`, `.unsupportedKDF`, `.unsupportedAEAD`
    /// (algorithms the key does not offer), or `.authenticationFailed`.
    public func decapsulate(_ encapsulatedRequest: Data) throws(ObliviousHTTPError) -> (request: Data, context: OHTTPResponseEncapsulator) {
        var reader = ByteReader(encapsulatedRequest)
        let keyID = try reader.readByte("the key identifier")
        let kemID = try reader.readUInt16("the KEM identifier")
        let kdfID = try reader.readUInt16("the KDF identifier")
        let aeadID = try reader.readUInt16("the AEAD identifier")
        guard let key = keys.first(where: { $0.keyConfig.keyID == keyID }) else {
            throw ObliviousHTTPError(.unknownKeyID, "no gateway key has identifier \(keyID)")
        }
        guard kemID == key.keyConfig.kemID else { throw .unsupported(kemID: kemID) }
        let offered = key.keyConfig.algorithms
        guard offered.contains(where: { $0.kdfID == kdfID }) else { throw .unsupported(kdfID: kdfID) }
        guard offered.contains(OHTTPKeyConfig.SymmetricAlgorithm(kdfID: kdfID, aeadID: aeadID)) else { throw .unsupported(aeadID: aeadID) }
        let suite = try HPKE.CipherSuite(kemID: kemID, kdfID: kdfID, aeadID: aeadID)
        let enc = try reader.readBytes(suite.kem.encapsulatedKeyLength, "the encapsulated key")
        let ciphertext = reader.readRemaining()
        guard ciphertext.count >= suite.aead.tagLength else {
            throw ObliviousHTTPError(.truncated, "the request ciphertext is shorter than its tag")
        }
        let header = OHTTPMessage.header(keyID: keyID, suite: suite)
        var recipient = try HPKE.Recipient(suite: suite, privateKey: key.privateKey,
                                           info: OHTTPMessage.requestInfo(header: header), enc: enc)
        let request = try recipient.context.open(aad: [], ciphertext: ciphertext)
        let context = OHTTPResponseEncapsulator(suite: suite, enc: enc,
                                                secret: try OHTTPMessage.responseSecret(exporting: recipient.context))
        return (Data(request), context)
    }
}
