/// The keys of one base-mode HPKE context (the key schedule of RFC 9180 Section 5.1) and its
/// sequence number; seals or opens in order, and exports secrets.
struct HPKEContext: Sendable {
    let suite: HPKE.CipherSuite
    let key: [UInt8]
    let baseNonce: [UInt8]
    let exporterSecret: [UInt8]
    private(set) var sequenceNumber: UInt64 = 0

    /// KeySchedule(mode_base, shared_secret, info, psk = "", psk_id = "").
    init(suite: HPKE.CipherSuite, sharedSecret: [UInt8], info: [UInt8]) throws(ObliviousHTTPError) {
        let labeled = HPKELabeledKDF(kdf: suite.kdf, suiteID: suite.suiteID)
        let modeBase: UInt8 = 0x00
        let pskIDHash = try labeled.extract(salt: [], label: "psk_id_hash", ikm: [])
        let infoHash = try labeled.extract(salt: [], label: "info_hash", ikm: info)
        let keyScheduleContext = [modeBase] + pskIDHash + infoHash
        let secret = try labeled.extract(salt: sharedSecret, label: "secret", ikm: [])
        self.suite = suite
        key = try labeled.expand(prk: secret, label: "key", info: keyScheduleContext, length: suite.aead.keyLength)
        baseNonce = try labeled.expand(prk: secret, label: "base_nonce", info: keyScheduleContext, length: suite.aead.nonceLength)
        exporterSecret = try labeled.expand(prk: secret, label: "exp", info: keyScheduleContext, length: suite.kdf.hashLength)
    }

    /// base_nonce XOR I2OSP(seq, Nn).
    func nonce(sequenceNumber: UInt64) -> [UInt8] {
        var nonce = baseNonce
        for index in 0..<8 {
            nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: sequenceNumber >> UInt64(8 * index))
        }
        return nonce
    }

    mutating func seal(aad: [UInt8], plaintext: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let ciphertext = try AEADCipher.seal(suite.aead, key: key, nonce: try nextNonce(), aad: aad, plaintext: plaintext)
        sequenceNumber += 1
        return ciphertext
    }

    mutating func open(aad: [UInt8], ciphertext: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let plaintext = try AEADCipher.open(suite.aead, key: key, nonce: try nextNonce(), aad: aad, ciphertext: ciphertext)
        sequenceNumber += 1
        return plaintext
    }

    /// Export(exporter_context, L) = LabeledExpand(exporter_secret, "sec", exporter_context, L).
    func export(context: [UInt8], length: Int) throws(ObliviousHTTPError) -> [UInt8] {
        guard length > 0, length <= 255 * suite.kdf.hashLength else {
            throw ObliviousHTTPError(.invalidLength, "an export of \(length) bytes exceeds 255 * Nh for \(suite.kdf)")
        }
        let labeled = HPKELabeledKDF(kdf: suite.kdf, suiteID: suite.suiteID)
        return try labeled.expand(prk: exporterSecret, label: "sec", info: context, length: length)
    }

    /// The nonce for the current sequence number; a 64-bit counter is far below Nn's 2^96 - 1
    /// limit, but it must not wrap.
    private func nextNonce() throws(ObliviousHTTPError) -> [UInt8] {
        guard sequenceNumber < UInt64.max else {
            throw ObliviousHTTPError(.messageLimitReached, "the HPKE context's sequence number is exhausted")
        }
        return nonce(sequenceNumber: sequenceNumber)
    }
}
