import XCTest
@testable import PrivacyPass

/// RFC 9497 Appendix A, VOPRF mode, P384-SHA384: key derivation, Blind (and so hash-to-curve
/// P384_XMD:SHA-384_SSWU_RO_), BlindEvaluate with the vector's proof scalar, the proof bytes, the
/// client's proof check and Finalize, byte for byte; the batch vector's proof too.
final class VOPRFVectorTests: XCTestCase {
    private struct Suite: Decodable {
        let skSm, pkSm, seed, keyInfo, groupDST: String
        let vectors: [Vector]
    }
    private struct Vector: Decodable {
        let Batch: Int
        let Blind, BlindedElement, EvaluationElement, Input, Output: String
        let Proof: [String: String]
    }

    private func suite() throws -> Suite { try JSONDecoder().decode(Suite.self, from: TestVectors.data("rfc9497-voprf-p384-sha384.json")) }

    func testKeyDerivationAndDomainSeparation() throws {
        let s = try suite()
        XCTAssertEqual(hexString(VOPRFP384.hashToGroupDST), s.groupDST)
        let (secretKey, publicKey) = try VOPRFP384.deriveKeyPair(seed: hex(s.seed), info: hex(s.keyInfo))
        XCTAssertEqual(hexString(secretKey), s.skSm)
        XCTAssertEqual(hexString(publicKey), s.pkSm)
    }

    func testSingleElementVectors() throws {
        let s = try suite()
        let single = s.vectors.filter { $0.Batch == 1 }
        XCTAssertEqual(single.count, 2)
        for vector in single {
            let blinding = try VOPRFP384.blind(hex(vector.Input), blind: hex(vector.Blind))
            XCTAssertEqual(hexString(blinding.blindedElement), vector.BlindedElement)
            let (evaluated, proof) = try VOPRFP384.blindEvaluate(secretKey: hex(s.skSm), blindedElements: [blinding.blindedElement],
                                                                  proofRandomness: hex(vector.Proof["r"]!))
            XCTAssertEqual(evaluated.map(hexString), [vector.EvaluationElement])
            XCTAssertEqual(hexString(proof), vector.Proof["proof"])
            let output = try VOPRFP384.finalize(blinding, evaluatedElement: evaluated[0], proof: proof, publicKey: hex(s.pkSm))
            XCTAssertEqual(hexString(output), vector.Output)
        }
    }

    func testBatchVectorProof() throws {
        let s = try suite()
        let batch = try XCTUnwrap(s.vectors.first { $0.Batch == 2 })
        let inputs = batch.Input.split(separator: ",").map { hex(String($0)) }
        let blinds = batch.Blind.split(separator: ",").map { hex(String($0)) }
        let blinded = try zip(inputs, blinds).map { try VOPRFP384.blind($0, blind: $1).blindedElement }
        XCTAssertEqual(blinded.map(hexString).joined(separator: ","), batch.BlindedElement)
        let (evaluated, proof) = try VOPRFP384.blindEvaluate(secretKey: hex(s.skSm), blindedElements: blinded, proofRandomness: hex(batch.Proof["r"]!))
        XCTAssertEqual(evaluated.map(hexString).joined(separator: ","), batch.EvaluationElement)
        XCTAssertEqual(hexString(proof), batch.Proof["proof"])
        let group = try VOPRFP384.Suite()
        XCTAssertTrue(try group.verifyProof(publicKey: group.group.deserialize(hex(s.pkSm)), blinded: blinded.map { try group.group.deserialize($0) },
                                            evaluated: evaluated.map { try group.group.deserialize($0) }, proof: proof))
    }

    func testFinalizeRefusesAnEvaluationUnderAnotherKey() throws {
        let s = try suite()
        let vector = s.vectors[0]
        let blinding = try VOPRFP384.blind(hex(vector.Input), blind: hex(vector.Blind))
        let other = try VOPRFP384.deriveKeyPair(seed: [UInt8](repeating: 7, count: 32), info: [])
        let (evaluated, proof) = try VOPRFP384.blindEvaluate(secretKey: other.secretKey, blindedElements: [blinding.blindedElement])
        XCTAssertThrowsError(try VOPRFP384.finalize(blinding, evaluatedElement: evaluated[0], proof: proof, publicKey: hex(s.pkSm))) {
            XCTAssertEqual(($0 as? PrivacyPassError)?.code, .verificationFailed("the issuer's DLEQ proof does not verify"))
        }
    }
}
