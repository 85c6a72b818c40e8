import Foundation
import RelayFetchTestSupport
import XCTest
@testable import RelayFetch

/// `ContentDecoder` over bodies compressed by other software (Python's zlib, the brotli tool),
/// fed in small pieces as QUIC hands them over: gzip, deflate with zlib's wrapper and without it
/// (some servers send the raw stream, which libcurl accepts too), br, and two codings stacked.
final class ContentDecoderTests: XCTestCase {
    private static let text = Data((0..<300).map { "piece \($0) of a body that compresses\n" }.joined().utf8)

    /// `script` (Python, reading the text on stdin) writes the encoded bytes.
    private static func encoded(_ script: String) throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("decoder-\(UUID().uuidString)")
        try text.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let output = input.appendingPathExtension("out")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try TestServers.run(["/usr/bin/python3", "-c", "import sys, zlib; data = open(sys.argv[1], 'rb').read(); "
                                       + "open(sys.argv[2], 'wb').write(\(script))", input.path, output.path])
        XCTAssertEqual(run.status, 0, run.output)
        return [UInt8](try Data(contentsOf: output))
    }

    private func decoded(_ bytes: [UInt8], coding: String, piece: Int = 100) throws -> Data {
        let decoder = try XCTUnwrap(ContentDecoder(contentEncoding: coding))
        var out = Data()
        var start = 0
        while start < bytes.count {
            out.append(contentsOf: try decoder.decode(Array(bytes[start..<min(start + piece, bytes.count)])))
            start += piece
        }
        return out
    }

    func testGzipAndBothDeflateFormsDecodeInPieces() throws {
        XCTAssertEqual(try decoded(Self.encoded("(lambda c: c.compress(data) + c.flush())(zlib.compressobj(wbits=31))"), coding: "gzip"), Self.text)
        XCTAssertEqual(try decoded(Self.encoded("zlib.compress(data)"), coding: "deflate"), Self.text)
        XCTAssertEqual(try decoded(Self.encoded("(lambda c: c.compress(data) + c.flush())(zlib.compressobj(wbits=-15))"), coding: "deflate"), Self.text)
    }

    func testBrotliAndStackedCodingsDecode() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("decoder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("body")
        try Self.text.write(to: plain)
        let run = try TestServers.run(["/usr/bin/brotli", "-f", plain.path])  // writes body.br
        XCTAssertEqual(run.status, 0, run.output)
        let brotli = [UInt8](try Data(contentsOf: folder.appendingPathComponent("body.br")))
        XCTAssertEqual(try decoded(brotli, coding: "br", piece: 7), Self.text)
        // "br, gzip": brotli first, then gzip over it; decoded in the reverse order.
        let script = "import sys, zlib; c = zlib.compressobj(wbits=31); d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(c.compress(d) + c.flush())"
        let stacked = folder.appendingPathComponent("body.br.gz")
        XCTAssertEqual(try TestServers.run(["/usr/bin/python3", "-c", script, folder.appendingPathComponent("body.br").path, stacked.path]).status, 0)
        XCTAssertEqual(try decoded([UInt8](try Data(contentsOf: stacked)), coding: "br, gzip"), Self.text)
    }

    func testIdentityAndUnknownCodingsAreNotDecodedAndBadBytesFail() throws {
        XCTAssertNil(ContentDecoder(contentEncoding: "identity"))
        XCTAssertNil(ContentDecoder(contentEncoding: "zstd"))
        let decoder = try XCTUnwrap(ContentDecoder(contentEncoding: "gzip"))
        XCTAssertThrowsError(try decoder.decode(Array("not gzip at all".utf8)))
    }

    /// A small piece that expands past the body's limit stops expanding there (a bomb is refused, not inflated).
    func testAPieceThatDecodesPastTheLimitFails() throws {
        let bomb = try Self.encoded("(lambda c: c.compress(bytes(64 << 20)) + c.flush())(zlib.compressobj(wbits=31))")
        XCTAssertLessThan(bomb.count, 128 << 10)
        let decoder = try XCTUnwrap(ContentDecoder(contentEncoding: "gzip"))
        XCTAssertThrowsError(try decoder.decode(bomb, atMost: 1 << 20)) { XCTAssertTrue(($0 as? ContentDecoder.Failure)?.tooLarge == true, "\($0)") }
    }
}
