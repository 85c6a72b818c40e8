import XCTest
import ObliviousHTTP

final class HPKETests: XCTestCase {
    private func expect(_ code: ObliviousHTTPError.Code, line: UInt = #line, _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), line: line) { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code, "\($0)", line: line) }
    }

    private let allSuites = HPKE.KDF.allCases.flatMap { kdf in HPKE.AEAD.allCases.map { HPKE.CipherSuite(kdf: kdf, aead: $0) } }

    func testRandomRoundTripsInEverySuite() throws {
        for suite in allSuites {
            let recipientKey = try HPKE.PrivateKey.generate()
            let info = Data("round trip".utf8)
            var sender = try HPKE.Sender(suite: suite, recipientPublicKey: recipientKey.publicKey, info: info)
            var recipient = try HPKE.Recipient(suite: suite, privateKey: recipientKey, info: info, encapsulatedKey: sender.encapsulatedKey)
            for length in [0, 1, 15, 16, 17, 1000] {
                let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0) })
                let sealed = try sender.seal(message, authenticating: Data([UInt8(length & 0xff)]))
                XCTAssertEqual(sealed.count, length + suite.aead.tagLength)
                XCTAssertEqual(try recipient.open(sealed, authenticating: Data([UInt8(length & 0xff)])), message, "\(suite)")
            }
            let exported = try sender.exportSecret(context: Data("ctx".utf8), length: 255 * suite.kdf.hashLength)
            XCTAssertEqual(try recipient.exportSecret(context: Data("ctx".utf8), length: 255 * suite.kdf.hashLength), exported)
        }
    }

    func testEphemeralKeysAreFresh() throws {
        let recipientKey = try HPKE.PrivateKey.generate()
        let suite = HPKE.CipherSuite(kdf: .hkdfSHA256, aead: .aes128GCM)
        let first = try HPKE.Sender(suite: suite, recipientPublicKey: recipientKey.publicKey, info: Data())
        let second = try HPKE.Sender(suite: suite, recipientPublicKey: recipientKey.publicKey, info: Data())
        XCTAssertNotEqual(first.encapsulatedKey, second.encapsulatedKey)
        XCTAssertNotEqual(try HPKE.PrivateKey.generate().rawRepresentation, recipientKey.rawRepresentation)
    }

    func testOpenFailsOutOfOrderOrWithOtherDataAndDoesNotAdvance() throws {
        let recipientKey = try HPKE.PrivateKey.generate()
        let suite = HPKE.CipherSuite(kdf: .hkdfSHA384, aead: .chaCha20Poly1305)
        var sender = try HPKE.Sender(suite: suite, recipientPublicKey: recipientKey.publicKey, info: Data("i".utf8))
        var recipient = try HPKE.Recipient(suite: suite, privateKey: recipientKey, info: Data("i".utf8), encapsulatedKey: sender.encapsulatedKey)
        let first = try sender.seal(Data("one".utf8))
        let second = try sender.seal(Data("two".utf8))
        expect(.authenticationFailed) { _ = try recipient.open(second) }
        expect(.authenticationFailed) { _ = try recipient.open(first, authenticating: Data("x".utf8)) }
        expect(.truncated) { _ = try recipient.open(first.prefix(15)) }
        XCTAssertEqual(try recipient.open(first), Data("one".utf8))
        XCTAssertEqual(try recipient.open(second), Data("two".utf8))

        var wrongInfo = try HPKE.Recipient(suite: suite, privateKey: recipientKey, info: Data("j".utf8), encapsulatedKey: sender.encapsulatedKey)
        expect(.authenticationFailed) { _ = try wrongInfo.open(first) }
    }

    func testKeyAndLengthRefusals() throws {
        let suite = HPKE.CipherSuite(kdf: .hkdfSHA256, aead: .aes256GCM)
        let key = try HPKE.PrivateKey.generate()
        expect(.invalidKey) { _ = try HPKE.PrivateKey(rawRepresentation: Data(count: 31)) }
        expect(.invalidKey) { _ = try HPKE.Sender(suite: suite, recipientPublicKey: Data(count: 33), info: Data()) }
        // u = 0 and u = 1 are low-order points: the shared secret would be all zeros.
        expect(.invalidKey) { _ = try HPKE.Sender(suite: suite, recipientPublicKey: Data(count: 32), info: Data()) }
        expect(.invalidKey) { _ = try HPKE.Recipient(suite: suite, privateKey: key, info: Data(), encapsulatedKey: Data(count: 32)) }
        expect(.invalidKey) { _ = try HPKE.Recipient(suite: suite, privateKey: key, info: Data(), encapsulatedKey: Data([1]) + Data(count: 31)) }
        expect(.invalidKey) { _ = try HPKE.Recipient(suite: suite, privateKey: key, info: Data(), encapsulatedKey: Data(count: 5)) }
        expect(.invalidLength) { _ = try HPKE.PrivateKey(derivedFrom: Data(count: 16)) }
        let sender = try HPKE.Sender(suite: suite, recipientPublicKey: key.publicKey, info: Data())
        expect(.invalidLength) { _ = try sender.exportSecret(context: Data(), length: 0) }
        expect(.invalidLength) { _ = try sender.exportSecret(context: Data(), length: 255 * 32 + 1) }
        expect(.unsupportedKEM) { _ = try HPKE.CipherSuite(kemID: 0x0010, kdfID: 1, aeadID: 1) }
        expect(.unsupportedKDF) { _ = try HPKE.CipherSuite(kemID: 0x0020, kdfID: 4, aeadID: 1) }
        expect(.unsupportedAEAD) { _ = try HPKE.CipherSuite(kemID: 0x0020, kdfID: 1, aeadID: 0xffff) }
    }

    func testPrivateKeySerializationRoundTrips() throws {
        let key = try HPKE.PrivateKey.generate()
        let restored = try HPKE.PrivateKey(rawRepresentation: key.rawRepresentation)
        XCTAssertEqual(restored.publicKey, key.publicKey)
        XCTAssertEqual(key.publicKey.count, 32)
    }
}
