import Foundation

/// A generated site (Samples/servers/hostile/make_crawl_site.py) served by a static origin of
/// our own (static_origin.py) on 127.0.0.21, which relays reach as `https://origin.test:<port>/`.
/// The origin's own log says which paths were fetched, how often, with which headers.
public final class CrawlSite {
    public let server: HostileServer
    public let root: URL
    /// `https://origin.test:<port>`, no trailing slash.
    public let origin: String

    /// Generates `pages` pages into a fresh folder and starts an origin serving them.
    public init(pages: Int = 300, generatorArguments: [String] = [], serverArguments: [String] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-site-\(UUID().uuidString)")
        let script = TestServers.repository.appendingPathComponent("Samples/servers/hostile/make_crawl_site.py").path
        let generated = try TestServers.run([HostileServer.python, script, "--out", root.path, "--pages", String(pages)] + generatorArguments)
        guard generated.status == 0 else { throw TestServerError(description: "make_crawl_site.py failed: \(generated.output)") }
        server = try HostileServer(script: "static_origin.py", arguments: ["--root", root.path] + serverArguments)
        origin = "https://origin.test:\(server.port)"
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// The paths a polite crawl from `/` must fetch (robots.txt excluded).
    public func expectedPaths() throws -> [String] {
        try String(contentsOf: root.appendingPathComponent("expected.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Adds /req/index.html: a page with a style sheet (style.css, 32 bytes, which names
    /// bg.png), an image (img.png) and an image on the origin's IP literal (direct.png), which a
    /// chain for origin.test only does not cover; each image is 1000 bytes.
    public func addPageWithRequisites() throws {
        let folder = root.appendingPathComponent("req")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let html = """
            <!doctype html><html><head><link rel="stylesheet" href="style.css"></head>
            <body><img src="img.png"><img src="https://127.0.0.21:\(server.port)/req/direct.png"></body></html>
            """
        try Data(html.utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("body { background: url(bg.png) }".utf8).write(to: folder.appendingPathComponent("style.css"))
        for image in ["img.png", "bg.png", "direct.png"] { try Data(count: 1000).write(to: folder.appendingPathComponent(image)) }
    }

    /// One request the origin logged.
    public struct Request {
        public let time: Double
        /// Requests in progress at the origin when this one arrived (itself included).
        public let inProgress: Int
        /// The address the request came from (the last relay of the chain).
        public let peer: String
        public let method: String
        public let target: String
        public let headerLines: [String]
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    /// Every request the origin logged, in arrival order; throws when its log is missing.
    public func requests() throws -> [Request] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            guard fields.count >= 7, fields[0] == "REQUEST", let time = Double(fields[1]), let active = Int(fields[2]) else { return nil }
            return Request(time: time, inProgress: active, peer: fields[3], method: fields[4], target: fields[5],
                           headerLines: fields[6].components(separatedBy: "|"))
        }
    }

    /// One response the origin sent: its target, status, body size and the SHA-256 of the body
    /// (lower-case hex), as the origin computed them.
    public struct Response {
        public let target: String
        public let status: Int
        public let bytes: Int
        public let sha256: String
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    /// Every response the origin logged as sent, in order; throws when its log is missing.
    public func responses() throws -> [Response] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            guard fields.count >= 6, fields[0] == "SENT", let status = Int(fields[3]), let bytes = Int(fields[4]) else { return nil }
            return Response(target: fields[2], status: status, bytes: bytes, sha256: fields[5])
        }
    }

    /// Writes `html` at `path` (under the site's root), and with `headers` (lines such as
    /// "X-Robots-Tag: nofollow" or "Status: 302 Found") the sidecar file the origin adds to its
    /// response.
    public func addPage(_ path: String, _ html: String, headers: [String] = []) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(html.utf8).write(to: file)
        if !headers.isEmpty { try Data(headers.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file.path + ".headers")) }
    }

    /// The targets whose responses the client stopped reading before their end.
    public func abortedTargets() throws -> [String] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            return fields.count >= 4 && fields[0] == "ABORTED" ? fields[3] : nil
        }
    }

    /// How many times each path was requested, robots.txt excluded.
    public func pageFetchCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in try requests() where request.path != "/robots.txt" { counts[request.target, default: 0] += 1 }
        return counts
    }
}
