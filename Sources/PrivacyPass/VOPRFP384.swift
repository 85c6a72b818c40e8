/// VOPRF(P-384, SHA-384) of RFC 9497, mode 0x01: the client's Blind and Finalize (with the DLEQ
/// proof checked, so an issuer cannot tag a client with a key of its own), and for tests and the
/// loopback issuer, BlindEvaluate with its proof and DeriveKeyPair.
package enum VOPRFP384 {
    /// "OPRFV1-" || I2OSP(0x01, 1) || "-P384-SHA384".
    static let contextString: [UInt8] = Array("OPRFV1-".utf8) + [0x01] + Array("-P384-SHA384".utf8)
    static let hashToGroupDST = Array("HashToGroup-".utf8) + contextString
    static let hashToScalarDST = Array("HashToScalar-".utf8) + contextString

    /// What the client keeps between request and response.
    package struct Blinding: Sendable {
        package let input: [UInt8]
        package let blind: [UInt8]
        package let blindedElement: [UInt8]
    }

    /// Blind: blind * HashToGroup(input), with a random blind unless given (tests pass the RFC's).
    package static func blind(_ input: [UInt8], blind: [UInt8]? = nil) throws -> Blinding {
        try withSuite { suite in try blinding(input, blind: blind, suite: suite) }
    }

    private static func blinding(_ input: [UInt8], blind: [UInt8]?, suite: Suite) throws -> Blinding {
        let scalar = try blind.map { try suite.group.deserializeScalar($0) } ?? suite.scalars.randomNonZero()
        guard !scalar.isZero else { throw PrivacyPassError.cryptoFailure("a zero blind") }
        let element = try suite.hashToCurve.hashToCurve(input, dst: hashToGroupDST)
        guard !suite.group.isIdentity(element) else { throw PrivacyPassError.cryptoFailure("the input hashed to the identity") }
        let blinded = try suite.group.multiply(scalar, element)
        return Blinding(input: input, blind: try suite.group.serializeScalar(scalar), blindedElement: try suite.group.serialize(blinded))
    }

    /// Finalize: verifies the proof that `evaluatedElement` is skS * blindedElement for the skS of
    /// `publicKey`, unblinds and hashes. Throws `.verificationFailed` when the proof does not hold.
    package static func finalize(_ blinding: Blinding, evaluatedElement: [UInt8], proof: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        try withSuite { suite in try finalize(blinding, evaluatedElement: evaluatedElement, proof: proof, publicKey: publicKey, suite: suite) }
    }

    private static func finalize(_ blinding: Blinding, evaluatedElement: [UInt8], proof: [UInt8], publicKey: [UInt8], suite: Suite) throws -> [UInt8] {
        let group = suite.group
        let pk = try group.deserialize(publicKey)
        let blinded = try group.deserialize(blinding.blindedElement)
        let evaluated = try group.deserialize(evaluatedElement)
        guard try suite.verifyProof(publicKey: pk, blinded: [blinded], evaluated: [evaluated], proof: proof) else {
            throw PrivacyPassError.verificationFailed("the issuer's DLEQ proof does not verify")
        }
        guard let inverse = try suite.scalars.inverse(group.deserializeScalar(blinding.blind)) else {
            throw PrivacyPassError.cryptoFailure("the blind has no inverse")
        }
        let unblinded = try group.serialize(group.multiply(inverse, evaluated))
        return SHA.sha384(lengthPrefixed(blinding.input) + lengthPrefixed(unblinded) + Array("Finalize".utf8))
    }

    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8 & 0xFF), UInt8(bytes.count & 0xFF)] + bytes }

    /// The group, its scalar field and the hash to curve. Building one cost more than a token's
    /// blinding (the EC_GROUP, three BN_CTX, Montgomery and SSWU constants), so they are kept
    /// (`withSuite`); each is used by one caller at a time, as its contexts require.
    struct Suite {
        let group: P384Group
        let scalars: ModularArithmetic
        let hashToCurve: HashToCurveP384

        init() throws {
            group = try P384Group()
            scalars = try ModularArithmetic(modulus: group.order)
            hashToCurve = try HashToCurveP384(group: group)
        }

        func hashToScalar(_ message: [UInt8], dst: [UInt8] = VOPRFP384.hashToScalarDST) throws -> BigNumber {
            try HashToCurveP384.hashToField(message, dst: dst, count: 1, modulus: scalars)[0]
        }

        /// ComputeComposites (RFC 9497 §2.2.1); with `secretKey`, Z is k * M (ComputeCompositesFast).
        func composites(publicKey: P384Group.Element, blinded: [P384Group.Element], evaluated: [P384Group.Element],
                        secretKey: BigNumber? = nil) throws -> (m: P384Group.Element, z: P384Group.Element) {
            let seedDST = Array("Seed-".utf8) + VOPRFP384.contextString
            let seed = SHA.sha384(lengthPrefixed(try group.serialize(publicKey)) + lengthPrefixed(seedDST))
            var m = try group.identity(), z = try group.identity()
            for index in blinded.indices {
                let transcript = lengthPrefixed(seed) + [UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)]
                    + lengthPrefixed(try group.serialize(blinded[index])) + lengthPrefixed(try group.serialize(evaluated[index]))
                    + Array("Composite".utf8)
                let d = try hashToScalar(transcript)
                m = try group.add(group.multiplyPublic(d, blinded[index]), m)
                if secretKey == nil { z = try group.add(group.multiplyPublic(d, evaluated[index]), z) }
            }
            if let secretKey { z = try group.multiply(secretKey, m) }
            return (m, z)
        }

        func challenge(publicKey: P384Group.Element, m: P384Group.Element, z: P384Group.Element,
                       t2: P384Group.Element, t3: P384Group.Element) throws -> BigNumber {
            var transcript: [UInt8] = []
            for element in [publicKey, m, z, t2, t3] { transcript += lengthPrefixed(try group.serialize(element)) }
            return try hashToScalar(transcript + Array("Challenge".utf8))
        }

        /// VerifyProof with A = G, B = the public key.
        func verifyProof(publicKey: P384Group.Element, blinded: [P384Group.Element], evaluated: [P384Group.Element],
                         proof: [UInt8]) throws -> Bool {
            guard proof.count == 2 * P384Group.scalarLength,
                  let c = try? group.deserializeScalar(Array(proof.prefix(48))),
                  let s = try? group.deserializeScalar(Array(proof.suffix(48))) else { return false }
            let (m, z) = try composites(publicKey: publicKey, blinded: blinded, evaluated: evaluated)
            let t2 = try group.multiplyPublic(c, publicKey, plusGeneratorTimes: s)
            let t3 = try group.add(group.multiplyPublic(s, m), group.multiplyPublic(c, z))
            return try challenge(publicKey: publicKey, m: m, z: z, t2: t2, t3: t3).equals(c)
        }
    }
}
