import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// A streamed upload over HTTP/3 goes out piece by piece as the origin takes it: a body far
/// larger than the session lets one request hold in memory reaches the origin whole (its own
/// hash of what it read, in its log), and the client's peak memory grows by a few windows, not
/// by the body. The origin is our aioquic server (`Samples/servers/hostile/h3_origin.py`,
/// `/upload`) on 127.0.5.10, reached as origin.test through a relay of the test's own on 127.0.5.11.
final class HTTP3OriginUploadTests: XCTestCase {
    private var origin: HostileServer!
    private var relay: HTTP3RelayInstance!
    private var folder: URL!

    override func setUpWithError() throws {
        origin = try HostileServer(script: "h3_origin.py", host: "127.0.5.10")
        relay = try HTTP3RelayInstance(host: "127.0.5.11", hosts: ["origin.test": "127.0.5.10"])
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("h3upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        origin?.stop()
        relay?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testALargeStreamedUploadReachesTheOriginWholeInBoundedMemory() async throws {
        let size = 40 << 20
        let file = folder.appendingPathComponent("upload.bin")
        try Self.pattern(size: size).write(to: file)
        let expected = try Self.sha256(of: file)

        let hop = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://\(relay.host):\(relay.port)")!, relayProtocol: .http3)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.originProtocol = .http3
        // Collected whole, the body would have to fit here (an upload that did failed with this limit).
        configuration.maximumResponseSize = 8 << 20
        // Far shorter than the upload (about 25 s through the Python relay): the body going out
        // is activity, as with libcurl, though no response byte comes back until its end. Not
        // shorter than 8 s: once the last piece is out, the Python relay still drains its queue
        // to the origin and the origin hashes, with nothing moving on the client's side (3 s
        // failed on a loaded machine in 3 of 7 runs, each with the whole body sent).
        configuration.idleTimeout = 8
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        var request = HTTPRequest(url: URL(string: "https://origin.test:\(origin.port)/upload")!)
        request.method = "PUT"
        request.bodyStream = try RequestBodyStream([.file(file)])

        // MemoryPeak: the peak resident size, or under a sanitizer the live heap (AddressSanitizer's
        // quarantine took the resident size up by 67 MiB here).
        let gauge = try MemoryPeak()
        let (data, response) = try await session.data(for: request)
        let (peakGrowth, _) = try gauge.stop()

        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "\(size) \(expected)")
        XCTAssertEqual(try origin.events().filter { $0.hasPrefix("UPLOAD ") }, ["UPLOAD \(size) \(expected) 127.0.5.11"],
                       "the origin read the whole body, from the relay")
        XCTAssertLessThan(peakGrowth, 24 << 20, "the client's peak memory grew by \(peakGrowth >> 20) MiB for a \(size >> 20) MiB upload")
    }

    /// Bytes that differ from piece to piece, so a piece lost, repeated or reordered changes the hash.
    private static func pattern(size: Int) -> Data {
        var data = Data(count: size)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for index in words.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                words[index] = state
            }
        }
        return data
    }

    private static func sha256(of file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
