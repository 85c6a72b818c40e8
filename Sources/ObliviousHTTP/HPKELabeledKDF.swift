import WireFormat

/// HPKE's labeled KDF calls (RFC 9180 Section 4) bound to one suite_id.
struct HPKELabeledKDF {
    let kdf: HPKE.KDF
    let suiteID: [UInt8]

    private static let version = Array("HPKE-v1".utf8)

    /// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm).
    func extract(salt: [UInt8], label: String, ikm: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        try HKDF.extract(kdf, salt: salt, ikm: Self.version + suiteID + Array(label.utf8) + ikm)
    }

    /// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L).
    func expand(prk: [UInt8], label: String, info: [UInt8], length: Int) throws(ObliviousHTTPError) -> [UInt8] {
        guard length > 0, length <= Int(UInt16.max) else {
            throw ObliviousHTTPError(.invalidLength, "a labeled expansion cannot produce \(length) bytes")
        }
        let labeledInfo = UInt16(length).bigEndianBytes + Self.version + suiteID + Array(label.utf8) + info
        return try HKDF.expand(kdf, prk: prk, info: labeledInfo, length: length)
    }
}
