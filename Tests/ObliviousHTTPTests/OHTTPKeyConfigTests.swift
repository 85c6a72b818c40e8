import XCTest
import ObliviousHTTP

final class OHTTPKeyConfigTests: XCTestCase {
    private let appendixA = Data(hex: "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e79815500080001000100010003")

    private func expect(_ code: ObliviousHTTPError.Code, line: UInt = #line, _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), line: line) { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code, "\($0)", line: line) }
    }

    func testParsesTheRFC9458Example() throws {
        let config = try OHTTPKeyConfig(parsing: appendixA)
        XCTAssertEqual(config.keyID, 1)
        XCTAssertEqual(config.kemID, 0x0020)
        XCTAssertEqual(config.publicKey.hex, "31e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e798155")
        XCTAssertEqual(config.algorithms, [.init(kdf: .hkdfSHA256, aead: .aes128GCM), .init(kdf: .hkdfSHA256, aead: .chaCha20Poly1305)])
        XCTAssertEqual(config.serialized(), appendixA)
    }

    func testListRoundTripsAndKeepsUnknownAlgorithms() throws {
        let second = try OHTTPKeyConfig(keyID: 0xfe, publicKey: Data(repeating: 7, count: 32),
                                        algorithms: [.init(kdfID: 0x0003, aeadID: 0x0002), .init(kdfID: 0x7777, aeadID: 0x8888)])
        let list = OHTTPKeyConfig.serializeList([try OHTTPKeyConfig(parsing: appendixA), second])
        XCTAssertEqual(list.prefix(2), Data([0x00, 0x2d]))
        let parsed = try OHTTPKeyConfig.parseList(list)
        XCTAssertEqual(parsed.count, 2)
        XCTAssertEqual(parsed[1], second)
        XCTAssertNil(parsed[1].algorithms[1].kdf)
        XCTAssertEqual(OHTTPKeyConfig.serializeList(parsed), list)
    }

    func testListSkipsConfigurationsWithUnknownKEMs() throws {
        let unknownKEM = Data([0x05, 0x00, 0x10]) + Data(repeating: 4, count: 65) + Data([0x00, 0x04, 0x00, 0x01, 0x00, 0x01])
        let list = Data([0x00, UInt8(unknownKEM.count)]) + unknownKEM + OHTTPKeyConfig.serializeList([try OHTTPKeyConfig(parsing: appendixA)])
        XCTAssertEqual(try OHTTPKeyConfig.parseList(list).map(\.keyID), [1])
        expect(.unsupportedKEM) { _ = try OHTTPKeyConfig.parseList(Data([0x00, UInt8(unknownKEM.count)]) + unknownKEM) }
        expect(.unsupportedKEM) { _ = try OHTTPKeyConfig(parsing: unknownKEM) }
    }

    func testMalformedConfigurations() {
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: Data()) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: self.appendixA.dropLast()) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: self.appendixA.prefix(20)) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: self.appendixA + Data([0])) }
        var zeroAlgorithms = appendixA.prefix(35); zeroAlgorithms += Data([0, 0])
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: zeroAlgorithms) }
        var oddLength = appendixA; oddLength[36] = 0x07
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(parsing: oddLength.dropLast()) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig.parseList(Data()) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig.parseList(Data([0x00])) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig.parseList(Data([0x00, 0x2e]) + self.appendixA) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig.parseList(Data([0x00, 0x2c]) + self.appendixA) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(keyID: 1, publicKey: Data(count: 31), algorithms: [.init(kdf: .hkdfSHA256, aead: .aes128GCM)]) }
        expect(.invalidKeyConfiguration) { _ = try OHTTPKeyConfig(keyID: 1, publicKey: Data(count: 32), algorithms: []) }
    }
}
