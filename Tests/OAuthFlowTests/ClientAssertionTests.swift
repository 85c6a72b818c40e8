import Foundation
import XCTest
@testable import OAuthFlow
import RelayFetchTestSupport

/// private_key_jwt client assertions signed with RSA, EC P-256 and Ed25519 keys made by the
/// openssl CLI, verified by an independent implementation (Python's `cryptography`) and by our
/// own verifier with the public key it extracted.
final class ClientAssertionTests: XCTestCase {
    private static let verifier = """
    import sys, json, base64
    from cryptography.hazmat.primitives import serialization, hashes
    from cryptography.hazmat.primitives.asymmetric import rsa, ec, padding, utils
    def b64d(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    def b64e(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
    key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
    h, p, s = sys.argv[2].split(".")
    msg, sig, pub = (h + "." + p).encode(), b64d(s), key.public_key()
    if isinstance(key, rsa.RSAPrivateKey):
        pub.verify(sig, msg, padding.PKCS1v15(), hashes.SHA256())
        n = pub.public_numbers()
        jwk = {"kty": "RSA", "n": b64e(n.n.to_bytes((n.n.bit_length() + 7) // 8, "big")), "e": b64e(n.e.to_bytes(3, "big"))}
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        assert len(sig) == 64
        der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        pub.verify(der, msg, ec.ECDSA(hashes.SHA256()))
        n = pub.public_numbers()
        jwk = {"kty": "EC", "crv": "P-256", "x": b64e(n.x.to_bytes(32, "big")), "y": b64e(n.y.to_bytes(32, "big"))}
    else:
        pub.verify(sig, msg)
        jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64e(pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))}
    jwk["kid"] = json.loads(b64d(h))["kid"]
    print(json.dumps({"header": json.loads(b64d(h)), "claims": json.loads(b64d(p)), "jwk": jwk}))
    """

    func testAssertionsVerifyIndependentlyForEveryKeyType() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assertion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let python = TestServers.repository.appendingPathComponent(".build/venv/bin/python").path
        let audience = URL(string: "https://origin.test:8443/o/token/")!
        for (options, alg) in [(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], "RS256"),
                               (["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], "ES256"), (["-algorithm", "ED25519"], "EdDSA")] {
            let pem = directory.appendingPathComponent("\(alg).pem").path
            let made = try TestServers.run(["/usr/bin/openssl", "genpkey"] + options + ["-out", pem])
            XCTAssertEqual(made.status, 0, made.output)
            let key = try JWSSigningKey(pem: try Data(contentsOf: URL(fileURLWithPath: pem)), keyID: "k-\(alg)")
            XCTAssertEqual(key.algorithm, alg)
            let now = Date()
            let assertion = try OAuthClient.clientAssertion(key, clientID: "robot", audience: audience, now: now)
            let checked = try TestServers.run([python, "-c", Self.verifier, pem, assertion])
            XCTAssertEqual(checked.status, 0, "\(alg): \(checked.output)")
            let report = try XCTUnwrap(JSONValue.parse(Data(checked.output.utf8)), checked.output)
            XCTAssertEqual(report["header"], .object(["alg": .string(alg), "typ": .string("JWT"), "kid": .string("k-\(alg)")]))
            let claims = try XCTUnwrap(report["claims"])
            XCTAssertEqual(claims["iss"]?.string, "robot")
            XCTAssertEqual(claims["sub"]?.string, "robot")
            XCTAssertEqual(claims["aud"]?.string, audience.absoluteString)
            XCTAssertEqual(claims["exp"]?.number, now.timeIntervalSince1970.rounded(.down) + 60)
            XCTAssertEqual(claims["jti"]?.string?.count, 22)
            let jwk = try XCTUnwrap(JSONWebKey(try XCTUnwrap(report["jwk"])))
            XCTAssertNoThrow(try JSONWebSignature(compact: assertion).verify(with: JSONWebKeySet(keys: [jwk])), alg)
        }
        XCTAssertThrowsError(try JWSSigningKey(pem: Data("not a key".utf8))) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.configuration("the private key is not a readable PEM key")))
        }
    }
}
