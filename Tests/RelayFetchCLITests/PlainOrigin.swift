import Foundation
import RelayFetchTestSupport

/// A plain-HTTP origin of our own in this suite's loopback range (127.0.1.2), serving `files`
/// (Samples/servers/hostile/static_origin.py --plain), for http:// targets and pages a browser
/// loads through the proxy; `requests()` reads its log of who asked for what.
final class PlainOrigin {
    static let address = "127.0.1.2"
    let server: HostileServer
    let root: URL

    init(files: [String: Data]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-plain-origin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: root.appendingPathComponent(name)) }
        server = try HostileServer(script: "static_origin.py", host: Self.address, arguments: ["--root", root.path, "--plain"])
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var url: String { "http://\(Self.address):\(server.port)" }

    struct Request {
        let peer: String
        let target: String
        let headers: String
    }

    /// Every request the origin logged (throws when its log is missing).
    func requests() throws -> [Request] {
        try server.events().map { $0.components(separatedBy: "\t") }.filter { $0.first == "REQUEST" && $0.count >= 7 }
            .map { Request(peer: $0[3], target: $0[5], headers: $0[6]) }
    }
}
