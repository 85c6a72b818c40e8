import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// Pages holding values at the edge of what their syntax allows, served by our static origin in
/// plain HTTP on 127.0.0.161 (reached through relay A) and loaded in browser mode: each used to
/// trap and end the process. What was fetched is read from the origin's log.
final class HostileValuesPageTests: XCTestCase {
    private var root: URL!
    private var origin: HostileServer!
    private var session: Session!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-values-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        origin = try HostileServer(script: "static_origin.py", host: "127.0.0.161", arguments: ["--plain", "--root", root.path])
        session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
    }

    override func tearDown() {
        session?.invalidate()
        origin?.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes `html` as /page.html (and 100-byte images a.png and b.png) and loads it.
    private func load(_ html: String) async throws -> Page {
        try Data(html.utf8).write(to: root.appendingPathComponent("page.html"))
        for image in ["a.png", "b.png"] { try Data(count: 100).write(to: root.appendingPathComponent(image)) }
        return try await PageLoader(session: session).load(URL(string: "http://127.0.0.161:\(origin.port)/page.html")!)
    }

    /// The paths the origin served, in order (the favicon browser mode asks for left out).
    private func requested() throws -> [String] {
        try origin.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            return fields.count >= 6 && fields[0] == "REQUEST" && fields[5] != "/favicon.ico" ? fields[5] : nil
        }
    }

    /// `:nth-child(-9223372036854775808)`: the selector parser took `abs` of Int.min, which
    /// traps. The selector is now invalid (its rule dropped, as browsers drop it); the next rule
    /// still applies.
    func testNthChildOfIntMinIsAnInvalidSelector() async throws {
        let page = try await load("""
            <!doctype html><style>li:nth-child(-9223372036854775808) { background: url(a.png) }
            li:nth-child(-9223372036854775808n+1), li:nth-child(2n-9223372036854775808) { background: url(a.png) }
            li { background-image: url(b.png) }</style><ul><li>x</li></ul>
            """)
        XCTAssertEqual(page.resources.map(\.url.path).filter { $0 != "/favicon.ico" }, ["/b.png"])
        XCTAssertEqual(try requested(), ["/page.html", "/b.png"])
    }

    /// An image on port 70000 (Foundation's `URL` takes it): the relayed route made a `UInt16`
    /// of the port and trapped. That image now fails alone, as an invalid URL; the others load.
    func testImageOnAPortBeyond65535FailsAlone() async throws {
        let page = try await load("""
            <!doctype html><img src="http://127.0.0.161:70000/a.png"><img src="b.png">
            """)
        let failed = try XCTUnwrap(page.resources.first { $0.url.port == 70000 })
        XCTAssertEqual(failed.error, "invalid URL \"http://127.0.0.161:70000/a.png\"")
        XCTAssertEqual(try requested(), ["/page.html", "/b.png"])
    }
}
