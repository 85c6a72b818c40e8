import Foundation

/// Caddy (Debian `caddy`, scripts/setup.sh), a real HTTP/3 origin, started for one test class
/// on an address of its own: it serves Samples/site over HTTP/1.1, HTTP/2 and HTTP/3 (same
/// port, TCP and UDP; its TCP answers announce `Alt-Svc: h3`) with a certificate the test CA
/// issues for `name` and the address. `/h3/echo` answers "METHOD BODY COOKIE", `/h3/cookie`
/// sets a cookie and redirects to /about.html, and `/h3/badalt` announces HTTP/3 on UDP port 9,
/// where nothing listens, `/h3/zeroalt` on port 0 (no valid port), and `/h3/otheralt` on
/// `alternativePort` when one is given. `/h3/encoded/NAME` serves `encodedFolder/NAME`: gzip when
/// asked for it, or `NAME.br` as it is to a client that takes br. Its JSON access log records each request's
/// protocol and peer (`requests()`, which fails when the log is missing).
public final class CaddyOrigin {
    public let host: String
    public let port: UInt16
    /// The name its certificate also carries (only relays that know it can resolve it).
    public let name: String
    public let log: URL
    /// Where `/h3/encoded/` serves from (empty until a test writes files there).
    public let encodedFolder: URL
    private let folder: URL
    private let process: Process

    /// One request as the access log has it.
    public struct Request {
        public let proto: String
        public let remoteIP: String
        public let remotePort: String
        public let method: String
        public let uri: String
        public let headers: [String: [String]]
        /// Whether the TLS session was resumed (a ticket from an earlier connection).
        public let resumed: Bool
    }

    /// `otherNames`: more names its certificate carries (as `name` does).
    public init(host: String, port: UInt16 = 8561, name: String = "h3origin.test", otherNames: [String] = [], alternativePort: UInt16? = nil) throws {
        try TestServers.ensureRunning()
        let caddy = "/usr/bin/caddy"
        guard FileManager.default.isExecutableFile(atPath: caddy) else { throw TestServerError(description: "caddy is missing: run scripts/setup.sh") }
        self.host = host
        self.port = port
        self.name = name
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("caddy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        log = folder.appendingPathComponent("access.log")
        encodedFolder = folder.appendingPathComponent("encoded")
        try FileManager.default.createDirectory(at: encodedFolder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        try TestServers.issueCertificate(commonName: name, subjectAltName: ([name] + otherNames).map { "DNS:\($0)," }.joined() + "IP:\(host)", certificate: certificate, key: key, in: folder)
        let site = TestServers.repository.appendingPathComponent("Samples/site").path
        let configuration = folder.appendingPathComponent("Caddyfile")
        try """
        {
        	admin off
        	auto_https off
        	servers {
        		protocols h1 h2 h3
        	}
        }
        https://:\(port) {
        	bind \(host)
        	tls \(certificate) \(key)
        	root * \(site)
        	route /h3/echo {
        		respond "{http.request.method} {http.request.body} {http.request.header.Cookie}" 200
        	}
        	route /h3/badalt {
        		header Alt-Svc "h3=\\":9\\""
        		respond "moved" 200
        	}
        	route /h3/zeroalt {
        		header Alt-Svc "h3=\\":0\\""
        		respond "moved" 200
        	}
        	handle_path /h3/encoded/* {
        		root * \(encodedFolder.path)
        		encode gzip
        		file_server {
        			precompressed br
        		}
        	}
        	route /h3/otheralt {
        		header Alt-Svc "h3=\\":\(alternativePort ?? 9)\\""
        		respond "moved" 200
        	}
        	route /h3/cookie {
        		header Set-Cookie "h3c=yes; Path=/"
        		redir * /about.html 302
        	}
        	file_server
        	log {
        		output file \(log.path)
        		format json
        	}
        }

        """.write(to: configuration, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("caddy.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: caddy)
        process.arguments = ["run", "--config", configuration.path, "--adapter", "caddyfile"]
        // Its storage (autosaved config, locks) in the test's folder, never the home folder.
        var environment = ProcessInfo.processInfo.environment
        for variable in ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"] { environment[variable] = folder.path }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: output)
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOf: output, encoding: .utf8), text.contains("serving initial configuration") {
                // One request over TCP: Caddy opens its access log at the first, and a test's
                // "nothing reached the origin" needs the log to be there.
                let ready = try TestServers.run(["/usr/bin/curl", "-s", "-o", "/dev/null", "--cacert", TestServers.caFile, "\(url)/?caddy-ready"])
                if ready.status == 0, FileManager.default.fileExists(atPath: log.path) { return }
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        throw TestServerError(description: "caddy on \(host):\(port) did not start: \(text.suffix(600))")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    public func stop() { process.stopServer() }

    /// The base URL by address.
    public var url: String { "https://\(host):\(port)" }

    /// The logged requests whose URI contains `marker` (all for ""); throws when the log is missing (a
    /// negative check must not pass on a log that was never written). Caddy writes each line as
    /// the request ends, so this waits up to `settle` seconds for `expected` lines.
    public func requests(containing marker: String, expected: Int = 0, settle: Double = 2) throws -> [Request] {
        let deadline = Date().addingTimeInterval(settle)
        while true {
            guard FileManager.default.fileExists(atPath: log.path) else {
                throw TestServerError(description: "the origin's log \(log.path) is missing")
            }
            let text = try String(contentsOf: log, encoding: .utf8)
            let found = text.split(separator: "\n").compactMap { Self.parse(String($0)) }.filter { marker.isEmpty || $0.uri.contains(marker) }
            if found.count >= expected || Date() > deadline { return found }
            usleep(50_000)
        }
    }

    private static func parse(_ line: String) -> Request? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let request = object["request"] as? [String: Any] else { return nil }
        return Request(proto: request["proto"] as? String ?? "", remoteIP: request["remote_ip"] as? String ?? "",
                       remotePort: request["remote_port"] as? String ?? "", method: request["method"] as? String ?? "",
                       uri: request["uri"] as? String ?? "", headers: request["headers"] as? [String: [String]] ?? [:],
                       resumed: (request["tls"] as? [String: Any])?["resumed"] as? Bool ?? false)
    }
}
