import Foundation
import RelayFetchTestSupport
import XCTest
@testable import PrivacyPass

/// Tokens of type 0x0002 issued by this module, checked by another implementation: Python's
/// `cryptography` loads the token key (the RSASSA-PSS SPKI as sent in `token-key`) and verifies the
/// authenticator as RSASSA-PSS, SHA-384, MGF1-SHA-384, salt 48, over the authenticator input.
final class IndependentVerifierTests: XCTestCase {
    private static let verifier = """
    import sys
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    from cryptography.hazmat.primitives.serialization import load_der_public_key
    key = load_der_public_key(bytes.fromhex(sys.argv[1]))
    assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 2048, key
    token = bytes.fromhex(sys.argv[2])
    message, signature = token[:98], token[98:]
    try:
        key.verify(signature, message, padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48), hashes.SHA384())
        print("valid")
    except InvalidSignature:
        print("invalid")
    """

    func testPythonCryptographyVerifiesFinalizedTokens() throws {
        let python = TestServers.repository.appendingPathComponent(".build/venv/bin/python").path
        let signer = try BlindRSASigner.generate(bits: 2048)
        let tokenKey = TokenIssuance.tokenKey(for: signer.publicKey)
        let issuance = try TokenIssuance(tokenType: .publicRSA2048, tokenKey: tokenKey)
        for context in [[UInt8](), [UInt8](repeating: 0xA5, count: 32)] {
            let challenge = TokenChallenge(tokenType: 2, issuerName: Array("issuer.test".utf8), redemptionContext: context,
                                           originInfo: Array("relay.test".utf8))
            let pending = try issuance.request(for: challenge)
            let token = try issuance.finish(pending, response: try signer.blindSign(pending.request.blindedMessage))
            XCTAssertEqual(token.challengeDigest, challenge.digest)
            let checked = try TestServers.run([python, "-c", Self.verifier, hexString(tokenKey), hexString(token.serialized())])
            XCTAssertEqual(checked.status, 0, checked.output)
            XCTAssertEqual(checked.output.trimmingCharacters(in: .whitespacesAndNewlines), "valid")

            // The verifier is not a rubber stamp: the same token for another challenge fails there.
            var other = token
            other.challengeDigest = TokenChallenge(tokenType: 2, issuerName: Array("issuer.test".utf8)).digest
            let refused = try TestServers.run([python, "-c", Self.verifier, hexString(tokenKey), hexString(other.serialized())])
            XCTAssertEqual(refused.output.trimmingCharacters(in: .whitespacesAndNewlines), "invalid")
        }
    }
}
