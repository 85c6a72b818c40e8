import XCTest
@testable import ObliviousHTTP

/// RFC 9458 Appendix A byte for byte, then round trips and every refusal.
final class OHTTPExchangeTests: XCTestCase {
    enum AppendixA {
        static let gatewayPrivateKey = Data(hex: "3c168975674b2fa8e465970b79c8dcf09f1c741626480bd4c6162fc5b6a98e1a")
        static let keyConfig = Data(hex: "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e79815500080001000100010003")
        static let request = Data(hex: "00034745540568747470730b6578616d706c652e636f6d012f")
        static let ephemeralPrivateKey = Data(hex: "bc51d5e930bda26589890ac7032f70ad12e4ecb37abb1b65b1256c9c48999c73")
        static let ephemeralPublicKey = "4b28f881333e7c164ffc499ad9796f877f4e1051ee6d31bad19dec96c208b472"
        static let info = "6d6573736167652f626874747020726571756573740001002000010001"
        static let encapsulatedRequest = Data(hex: """
            010020000100014b28f881333e7c164ffc499ad9796f877f4e1051ee6d31bad1
            9dec96c208b4726374e469135906992e1268c594d2a10c695d858c40a026e796
            5e7d86b83dd440b2c0185204b4d63525
            """)
        static let response = Data(hex: "0140c8")
        static let exportedSecret = "62d87a6ba569ee81014c2641f52bea36"
        static let responseNonce = Data(hex: "c789e7151fcba46158ca84b04464910d")
        static let aeadKey = "5d0172a080e428b16d298c4ea0db620d"
        static let aeadNonce = "f6bf1aeb88d6df87007fa263"
        static let encapsulatedResponse = Data(hex: """
            c789e7151fcba46158ca84b04464910d86f9013e404feea014e7be4a441f234f
            857fbd
            """)
    }

    private func appendixAGateway() throws -> OHTTPGateway {
        let key = try OHTTPGatewayKey(keyID: 1, privateKey: HPKE.PrivateKey(rawRepresentation: AppendixA.gatewayPrivateKey),
                                      algorithms: [.init(kdf: .hkdfSHA256, aead: .aes128GCM), .init(kdf: .hkdfSHA256, aead: .chaCha20Poly1305)])
        return OHTTPGateway(keys: [key])
    }

    func testAppendixAKeyConfiguration() throws {
        let gateway = try appendixAGateway()
        XCTAssertEqual(gateway.keys[0].keyConfig.serialized().hex, AppendixA.keyConfig.hex)
        XCTAssertEqual(try OHTTPKeyConfig(parsing: AppendixA.keyConfig), gateway.keys[0].keyConfig)
    }

    func testAppendixAClientSideByteForByte() throws {
        let client = try OHTTPClient(keyConfig: OHTTPKeyConfig(parsing: AppendixA.keyConfig))
        XCTAssertEqual(client.suite, HPKE.CipherSuite(kdf: .hkdfSHA256, aead: .aes128GCM))
        let ephemeral = try HPKE.PrivateKey(rawRepresentation: AppendixA.ephemeralPrivateKey)
        XCTAssertEqual(ephemeral.publicKey.hex, AppendixA.ephemeralPublicKey)
        XCTAssertEqual(Data(OHTTPMessage.requestInfo(header: OHTTPMessage.header(keyID: 1, suite: client.suite))).hex, AppendixA.info)

        let (encapsulated, context) = try client.encapsulate(AppendixA.request, ephemeralKey: ephemeral)
        XCTAssertEqual(encapsulated.hex, AppendixA.encapsulatedRequest.hex)
        XCTAssertEqual(Data(context.secret).hex, AppendixA.exportedSecret)
        XCTAssertEqual(try context.decapsulate(AppendixA.encapsulatedResponse), AppendixA.response)
    }

    func testAppendixAGatewaySideByteForByte() throws {
        let (request, context) = try appendixAGateway().decapsulate(AppendixA.encapsulatedRequest)
        XCTAssertEqual(request, AppendixA.request)
        XCTAssertEqual(try BinaryHTTPRequest(decoding: request), BinaryHTTPRequest(authority: "example.com"))
        XCTAssertEqual(Data(context.secret).hex, AppendixA.exportedSecret)
        let keys = try OHTTPMessage.responseKeys(suite: context.suite, secret: context.secret, enc: context.enc,
                                                 responseNonce: Array(AppendixA.responseNonce))
        XCTAssertEqual(Data(keys.key).hex, AppendixA.aeadKey)
        XCTAssertEqual(Data(keys.nonce).hex, AppendixA.aeadNonce)
        let encapsulated = try context.encapsulate(AppendixA.response, responseNonce: AppendixA.responseNonce)
        XCTAssertEqual(encapsulated.hex, AppendixA.encapsulatedResponse.hex)
    }

    func testRoundTripsForEverySuiteWithRandomKeysAndNonces() throws {
        let pairs = HPKE.KDF.allCases.flatMap { kdf in HPKE.AEAD.allCases.map { OHTTPKeyConfig.SymmetricAlgorithm(kdf: kdf, aead: $0) } }
        let gateway = OHTTPGateway(keys: [try .generate(keyID: 7, algorithms: pairs), try .generate(keyID: 9)])
        let configs = try OHTTPKeyConfig.parseList(gateway.keyConfigurations)
        XCTAssertEqual(configs.map(\.keyID), [7, 9])
        let request = try BinaryHTTPRequest(method: "POST", authority: "example.net", path: "/api",
                                            content: Data("ping".utf8)).encoded()
        let response = try BinaryHTTPResponse(status: 200, content: Data("pong".utf8)).encoded()
        for pair in pairs {
            let client = try OHTTPClient(keyConfig: configs[0], algorithm: pair)
            let (encapsulated, clientContext) = try client.encapsulate(request)
            let (received, gatewayContext) = try gateway.decapsulate(encapsulated)
            XCTAssertEqual(received, request, "\(pair)")
            let sealed = try gatewayContext.encapsulate(response)
            XCTAssertEqual(sealed.count, OHTTPMessage.responseNonceLength(client.suite) + response.count + 16)
            XCTAssertEqual(try clientContext.decapsulate(sealed), response, "\(pair)")
            let (again, _) = try client.encapsulate(request)
            XCTAssertNotEqual(again, encapsulated, "a fresh ephemeral key each time")
        }
    }

    func testGatewayRefusals() throws {
        let gateway = try appendixAGateway()
        let valid = AppendixA.encapsulatedRequest
        func expect(_ bytes: Data, _ code: ObliviousHTTPError.Code, line: UInt = #line) {
            XCTAssertThrowsError(try gateway.decapsulate(bytes), line: line) {
                XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code, "\($0)", line: line)
            }
        }
        var unknownKey = valid; unknownKey[0] = 2
        expect(unknownKey, .unknownKeyID)
        var otherKEM = valid; otherKEM[2] = 0x10
        expect(otherKEM, .unsupportedKEM)
        var otherKDF = valid; otherKDF[4] = 0x02
        expect(otherKDF, .unsupportedKDF)
        var otherAEAD = valid; otherAEAD[6] = 0x02
        expect(otherAEAD, .unsupportedAEAD)
        var chachaHeader = valid; chachaHeader[6] = 0x03  // offered, but the AAD-bound info no longer matches
        expect(chachaHeader, .authenticationFailed)
        for cut in [0, 3, 7, 20, 39, 39 + 15] { expect(valid.prefix(cut), .truncated) }
        for index in [8, 40, valid.count - 1] {
            var tampered = valid; tampered[index] ^= 0x01
            expect(tampered, .authenticationFailed)
        }
    }

    func testTamperedResponsesFailWithoutPlaintext() throws {
        let client = try OHTTPClient(keyConfig: OHTTPKeyConfig(parsing: AppendixA.keyConfig))
        let (_, context) = try client.encapsulate(AppendixA.request,
                                                  ephemeralKey: HPKE.PrivateKey(rawRepresentation: AppendixA.ephemeralPrivateKey))
        let valid = AppendixA.encapsulatedResponse
        for index in valid.indices {
            var tampered = valid; tampered[index] ^= 0x80
            XCTAssertThrowsError(try context.decapsulate(tampered)) {
                XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .authenticationFailed)
            }
        }
        XCTAssertThrowsError(try context.decapsulate(valid + Data([0]))) {
            XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .authenticationFailed)
        }
        for cut in [0, 15, 16, 31] {
            XCTAssertThrowsError(try context.decapsulate(valid.prefix(cut))) {
                XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .truncated)
            }
        }
        // A response for another request's context does not open either.
        let (_, otherContext) = try client.encapsulate(AppendixA.request)
        XCTAssertThrowsError(try otherContext.decapsulate(valid)) {
            XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .authenticationFailed)
        }
    }

    func testClientRefusesConfigurationsWithoutUsableAlgorithms() throws {
        let key = Data(repeating: 9, count: 32)
        let unknownKDF = try OHTTPKeyConfig(keyID: 1, publicKey: key, algorithms: [.init(kdfID: 0x99, aeadID: 1)])
        XCTAssertThrowsError(try OHTTPClient(keyConfig: unknownKDF)) { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .unsupportedKDF) }
        let unknownAEAD = try OHTTPKeyConfig(keyID: 1, publicKey: key, algorithms: [.init(kdfID: 1, aeadID: 0xffff)])
        XCTAssertThrowsError(try OHTTPClient(keyConfig: unknownAEAD)) { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .unsupportedAEAD) }
        let mixed = try OHTTPKeyConfig(keyID: 1, publicKey: key, algorithms: [.init(kdfID: 1, aeadID: 0xffff), .init(kdf: .hkdfSHA384, aead: .aes256GCM)])
        XCTAssertEqual(try OHTTPClient(keyConfig: mixed).suite, HPKE.CipherSuite(kdf: .hkdfSHA384, aead: .aes256GCM))
        XCTAssertThrowsError(try OHTTPClient(keyConfig: mixed, algorithm: .init(kdf: .hkdfSHA512, aead: .aes256GCM))) {
            XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .unsupportedKDF)
        }
    }
}
