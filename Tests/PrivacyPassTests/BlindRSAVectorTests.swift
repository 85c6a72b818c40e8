import XCTest
@testable import PrivacyPass

/// RFC 9474 Appendix A, the RSABSSA-SHA384-PSS-Deterministic vector, byte for byte: the PSS
/// encoding, the blinded message (with the vector's salt and r = inv^-1), the blind signature and
/// the final signature, and the signature's verification.
final class BlindRSAVectorTests: XCTestCase {
    func testRFC9474PSSDeterministicVector() throws {
        let v = try TestVectors.object("rfc9474-rsabssa-sha384-pss-deterministic.json")
        XCTAssertEqual(v["msg_prefix"], "", "the deterministic variant prepares with identity")
        XCTAssertEqual(v["prepared_msg"], v["msg"])
        let message = hex(v["msg"]!)
        let key = try BlindRSAPublicKey(modulus: hex(v["n"]!), exponent: hex(v["e"]!))
        let encoded = try PSSEncoding.encode(message: message, salt: hex(v["salt"]!), modulusBits: try BigNumber(bytes: key.modulus).bitCount)
        XCTAssertEqual(hexString(encoded), v["encoded_msg"])

        let arithmetic = try ModularArithmetic(modulus: BigNumber(bytes: key.modulus))
        let r = try XCTUnwrap(try arithmetic.inverse(BigNumber(bytes: hex(v["inv"]!)))).bytes(count: key.modulusLength)
        let blinding = try key.blind(message, salt: hex(v["salt"]!), blind: r)
        XCTAssertEqual(hexString(blinding.inverse), v["inv"])
        XCTAssertEqual(hexString(blinding.blindedMessage), v["blinded_msg"])

        let signer = try BlindRSASigner(modulus: hex(v["n"]!), publicExponent: hex(v["e"]!), privateExponent: hex(v["d"]!))
        let blindSignature = try signer.blindSign(blinding.blindedMessage)
        XCTAssertEqual(hexString(blindSignature), v["blind_sig"])
        let signature = try key.finalize(blindSignature, blinding: blinding)
        XCTAssertEqual(hexString(signature), v["sig"])
        XCTAssertTrue(try key.verify(signature: signature, message: message))
        XCTAssertFalse(try key.verify(signature: signature, message: message + [0]))
    }

    func testFinalizeRefusesASignatureThatDoesNotVerify() throws {
        let v = try TestVectors.object("rfc9474-rsabssa-sha384-pss-deterministic.json")
        let key = try BlindRSAPublicKey(modulus: hex(v["n"]!), exponent: hex(v["e"]!))
        let blinding = try key.blind(hex(v["msg"]!))
        var forged = hex(v["blind_sig"]!)
        forged[forged.count - 1] ^= 1
        XCTAssertThrowsError(try key.finalize(forged, blinding: blinding)) {
            guard case .verificationFailed = ($0 as? PrivacyPassError)?.code else { return XCTFail("\($0)") }
        }
    }
}
