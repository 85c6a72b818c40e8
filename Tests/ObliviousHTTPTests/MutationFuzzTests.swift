import XCTest
import ObliviousHTTP

/// Seeded random mutation of valid encodings, fed to the Binary HTTP decoders and the key
/// configuration parsers. Every case must finish with a value or an `ObliviousHTTPError`; a trap
/// would end the test process. Whatever decodes must also re-encode to an equal message.
final class MutationFuzzTests: XCTestCase {
    static let caseCount = 100_000
    static let seed: UInt64 = 0x0b11_7105_4854_5450

    private struct Outcomes: CustomStringConvertible {
        var decoded = 0
        var codes: [ObliviousHTTPError.Code: Int] = [:]

        mutating func record(_ code: ObliviousHTTPError.Code?) {
            if let code { codes[code, default: 0] += 1 } else { decoded += 1 }
        }

        var description: String {
            (["decoded=\(decoded)"] + codes.sorted { $0.value > $1.value }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    func testMutatedInputsNeverTrapAndDecodedValuesRoundTrip() throws {
        let requests = try requestSeeds()
        let responses = try responseSeeds()
        let keyConfigs = try keyConfigSeeds()
        let tightLimits = BinaryHTTPDecodingLimits(maxControlDataLength: 64, maxFieldSectionLength: 256, maxFieldCount: 8,
                                                   maxContentLength: 512, maxInformationalResponses: 2)
        var random = SplitMix64(seed: Self.seed)
        var requestOutcomes = Outcomes(), responseOutcomes = Outcomes(), keyConfigOutcomes = Outcomes()
        let start = Date()

        for index in 0..<Self.caseCount {
            let limits = index % 4 == 0 ? tightLimits : .default
            switch index % 3 {
            case 0:
                let input = mutate(requests[Int(random.next() % UInt64(requests.count))], &random)
                requestOutcomes.record(decodeRequest(input, limits: limits, index: index))
                _ = try? BinaryHTTPResponse(decoding: input, limits: limits)
            case 1:
                let input = mutate(responses[Int(random.next() % UInt64(responses.count))], &random)
                responseOutcomes.record(decodeResponse(input, limits: limits, index: index))
                _ = try? BinaryHTTPRequest(decoding: input, limits: limits)
            default:
                let input = mutate(keyConfigs[Int(random.next() % UInt64(keyConfigs.count))], &random)
                keyConfigOutcomes.record(parseKeyConfigs(input, index: index))
            }
        }

        let seconds = Date().timeIntervalSince(start)
        print("fuzz: \(Self.caseCount) cases in \(String(format: "%.2f", seconds)) s\n  requests: \(requestOutcomes)\n  responses: \(responseOutcomes)\n  key configs: \(keyConfigOutcomes)")
        // The mutations must reach past the first byte: both successes and a spread of failures.
        for outcomes in [requestOutcomes, responseOutcomes] {
            XCTAssertGreaterThan(outcomes.decoded, 100)
            XCTAssertGreaterThanOrEqual(outcomes.codes.count, 6, "\(outcomes.codes)")
        }
        XCTAssertGreaterThan(keyConfigOutcomes.decoded, 100)
        XCTAssertGreaterThanOrEqual(keyConfigOutcomes.codes.count, 2, "\(keyConfigOutcomes.codes)")
    }

    private func decodeRequest(_ input: Data, limits: BinaryHTTPDecodingLimits, index: Int) -> ObliviousHTTPError.Code? {
        roundTrip(input, index: index, decode: { data throws(ObliviousHTTPError) in try BinaryHTTPRequest(decoding: data, limits: limits) },
                  encode: { request, framing throws(ObliviousHTTPError) in try request.encoded(framing: framing) })
    }

    private func decodeResponse(_ input: Data, limits: BinaryHTTPDecodingLimits, index: Int) -> ObliviousHTTPError.Code? {
        roundTrip(input, index: index, decode: { data throws(ObliviousHTTPError) in try BinaryHTTPResponse(decoding: data, limits: limits) },
                  encode: { response, framing throws(ObliviousHTTPError) in try response.encoded(framing: framing) })
    }

    /// Decodes `input`; what decodes must re-encode in both framings and decode back the same.
    private func roundTrip<Message: Equatable>(_ input: Data, index: Int,
                                               decode: (Data) throws(ObliviousHTTPError) -> Message,
                                               encode: (Message, BinaryHTTPFraming) throws(ObliviousHTTPError) -> Data) -> ObliviousHTTPError.Code? {
        do {
            let message = try decode(input)
            for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
                XCTAssertEqual(try decode(encode(message, framing)), message, "case \(index)")
            }
            return nil
        } catch {
            return error.code
        }
    }

    private func parseKeyConfigs(_ input: Data, index: Int) -> ObliviousHTTPError.Code? {
        _ = try? OHTTPKeyConfig(parsing: input)
        do {
            let configs = try OHTTPKeyConfig.parseList(input)
            XCTAssertEqual(try OHTTPKeyConfig.parseList(OHTTPKeyConfig.serializeList(configs)), configs, "case \(index)")
            return nil
        } catch {
            return error.code
        }
    }

    /// One to four mutations: bit flips, byte overwrites (random or varint-boundary values),
    /// truncation, insertion, deletion, duplication, and occasionally pure noise.
    private func mutate(_ seed: [UInt8], _ random: inout SplitMix64) -> Data {
        var bytes = seed
        let interesting: [UInt8] = [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xbf, 0xc0, 0xff, 0x3a, 0x41, 0x0d]
        for _ in 0...(random.next() % 4) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            switch random.next() % 16 {
            case 0...3 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1) << (random.next() % 8)
            case 4...5 where !bytes.isEmpty:
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            case 6...7 where !bytes.isEmpty:
                bytes[position] = interesting[Int(random.next() % UInt64(interesting.count))]
            case 8...9:
                bytes.removeSubrange(position..<bytes.count)
            case 10...11:
                let count = Int(random.next() % 8) + 1
                bytes.insert(contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
            case 12 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int(random.next() % 16) + 1))
            case 13 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int(random.next() % 32) + 1)
                bytes.insert(contentsOf: bytes[position..<end], at: Int(random.next() % UInt64(bytes.count + 1)))
            case 14 where random.next() % 8 == 0:
                bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            default:
                if !bytes.isEmpty { bytes[position] &+= 1 }
            }
        }
        return Data(bytes)
    }

    private func requestSeeds() throws -> [[UInt8]] {
        let rich = BinaryHTTPRequest(
            method: "POST", authority: "example.org:8443", path: "/p?q=1",
            headerFields: [BinaryHTTPField(name: ":protocol", value: "x"), BinaryHTTPField(name: "content-type", value: "text/plain"),
                           BinaryHTTPField(name: "cookie", value: "a=b")],
            content: Data("hello, fuzz".utf8), trailerFields: [BinaryHTTPField(name: "checksum", value: "42")])
        return [Array(RFC9292Examples.knownLengthRequest), Array(RFC9292Examples.indeterminateLengthRequest),
                Array(Data(hex: "00034745540568747470730b6578616d706c652e636f6d012f")),
                Array(try rich.encoded(framing: .knownLength)), Array(try rich.encoded(framing: .indeterminateLength, paddingLength: 4))]
    }

    private func responseSeeds() throws -> [[UInt8]] {
        let rich = BinaryHTTPResponse(status: 206, headerFields: [BinaryHTTPField(name: "content-range", value: "bytes 0-3/9")],
                                      content: Data("abcd".utf8), trailerFields: [BinaryHTTPField(name: "t", value: "v")],
                                      informationalResponses: [.init(status: 100), .init(status: 103, headerFields: [BinaryHTTPField(name: "link", value: "</x>")])])
        return [Array(RFC9292Examples.indeterminateLengthResponse), Array(RFC9292Examples.knownLengthChunkedResponse),
                [0x01, 0x40, 0xc8], Array(try rich.encoded(framing: .knownLength)), Array(try rich.encoded(framing: .indeterminateLength))]
    }

    private func keyConfigSeeds() throws -> [[UInt8]] {
        let appendixA = try OHTTPKeyConfig(parsing: Data(hex: "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e79815500080001000100010003"))
        let other = try OHTTPKeyConfig(keyID: 200, publicKey: Data(repeating: 0x5a, count: 32),
                                       algorithms: [.init(kdf: .hkdfSHA512, aead: .aes256GCM), .init(kdfID: 0x42, aeadID: 0x43)])
        return [Array(OHTTPKeyConfig.serializeList([appendixA])), Array(OHTTPKeyConfig.serializeList([appendixA, other])),
                Array(OHTTPKeyConfig.serializeList([other, appendixA, other]))]
    }
}
