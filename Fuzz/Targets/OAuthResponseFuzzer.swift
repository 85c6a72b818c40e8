import Foundation
@testable import OAuthFlow

/// The input as what a provider answers: a JSON document (token response, device code, JWK Set),
/// a compact JWS, and the claims of an ID token signed with a key the validator trusts (RFC 8037
/// A.1), so the claim checks run past the signature. JSON that parses survives a round trip, and
/// every error, once thrown, can be described.
@_cdecl("LLVMFuzzerTestOneInput")
public func oauthResponseFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    if let json = JSONValue.parse(input) {
        let encoded = try? JSONEncoder().encode(json)
        fuzzCheck(encoded.flatMap(JSONValue.parse) == json, "JSON does not survive a round trip")
        do { _ = try TokenResponse(json, requestedScopes: ["openid"]) } catch { _ = "\(error)" }
        if let code = DeviceAuthorizationFlow.DeviceCode(json: json) {
            fuzzCheck(code.interval.isFinite && code.interval >= 0, "a polling interval of \(code.interval) s")
            fuzzCheck(code.expiresIn.isFinite && code.expiresIn >= 0, "a code living \(code.expiresIn) s")
        }
    }
    if let keys = JSONWebKeySet(json: input) {
        fuzzCheck(keys.keys.allSatisfy { ["RSA", "EC", "OKP"].contains($0.keyType) }, "a key of an unsupported type")
    }
    let text = String(decoding: input, as: UTF8.self)
    let trusted = OAuthFuzzKeys.trusted()
    do { try JSONWebSignature(compact: text).verify(with: trusted) } catch { _ = "\(error)" }

    guard let claims = JSONValue.parse(input), let token = try? OAuthFuzzKeys.signer?.sign(claims: claims) else { return 0 }
    let validator = IDTokenValidator(issuer: "https://idp.test", clientID: "client", keys: trusted)
    do {
        _ = try validator.validate(token, nonce: "n", accessToken: "a", code: "c", now: Date(timeIntervalSince1970: 1_800_000_000))
    } catch {
        _ = "\(error)"
    }
    return 0
}

/// The RFC 8037 A.1 Ed25519 key pair: the signer of the fuzzed claims, and the key set trusting it.
enum OAuthFuzzKeys {
    static let signer: JWSSigningKey? = {
        let prefix = Data([0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20])
        guard let seed = Base64URL.decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A") else { return nil }
        let pem = "-----BEGIN PRIVATE KEY-----\n\((prefix + seed).base64EncodedString())\n-----END PRIVATE KEY-----\n"
        return try? JWSSigningKey(pem: Data(pem.utf8))
    }()
    /// Made for each input: a key set kept in a static is reported as leaked (LeakSanitizer does
    /// not see the pointer inside `Data`'s enum storage).
    static func trusted() -> JSONWebKeySet {
        JSONWebKeySet(json: Data(#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#.utf8))
            ?? JSONWebKeySet(keys: [])
    }
}
