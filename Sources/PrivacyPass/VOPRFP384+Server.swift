/// The issuer's side of VOPRF(P-384, SHA-384): key derivation and BlindEvaluate with its proof.
/// Used by the tests (RFC 9497 and RFC 9578 vectors) and the loopback issuer; never by a client.
extension VOPRFP384 {
    /// DeriveKeyPair(seed, info) (RFC 9497 §3.2.1): (skS, pkS) serialized.
    package static func deriveKeyPair(seed: [UInt8], info: [UInt8]) throws -> (secretKey: [UInt8], publicKey: [UInt8]) {
        let suite = try Suite()
        let deriveInput = seed + lengthPrefixed(info)
        let dst = Array("DeriveKeyPair".utf8) + contextString
        for counter in 0...255 {
            let candidate = try suite.hashToScalar(deriveInput + [UInt8(counter)], dst: dst)
            if !candidate.isZero {
                return (try suite.group.serializeScalar(candidate), try suite.group.serialize(suite.group.multiply(candidate, nil)))
            }
        }
        throw PrivacyPassError.cryptoFailure("DeriveKeyPair found no key")
    }

    /// pkS for a serialized skS.
    package static func publicKey(secretKey: [UInt8]) throws -> [UInt8] {
        let suite = try Suite()
        return try suite.group.serialize(suite.group.multiply(suite.group.deserializeScalar(secretKey), nil))
    }

    /// BlindEvaluate for a batch: each evaluated element and one proof over all of them, with the
    /// proof's random scalar `r` random unless given (tests pass the RFC's).
    package static func blindEvaluate(secretKey: [UInt8], blindedElements: [[UInt8]], proofRandomness: [UInt8]? = nil)
        throws -> (evaluatedElements: [[UInt8]], proof: [UInt8]) {
        let suite = try Suite()
        let group = suite.group
        let k = try group.deserializeScalar(secretKey)
        let publicKey = try group.multiply(k, nil)
        let blinded = try blindedElements.map { try group.deserialize($0) }
        let evaluated = try blinded.map { try group.multiply(k, $0) }
        let (m, z) = try suite.composites(publicKey: publicKey, blinded: blinded, evaluated: evaluated, secretKey: k)
        let r = try proofRandomness.map { try group.deserializeScalar($0) } ?? suite.scalars.randomNonZero()
        let t2 = try group.multiply(r, nil), t3 = try group.multiply(r, m)
        let c = try suite.challenge(publicKey: publicKey, m: m, z: z, t2: t2, t3: t3)
        let s = try suite.scalars.subtract(r, suite.scalars.multiply(c, k))
        return (try evaluated.map { try group.serialize($0) }, try group.serializeScalar(c) + group.serializeScalar(s))
    }
}
