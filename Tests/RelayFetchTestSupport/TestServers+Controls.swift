import Foundation
import RelayFetch

/// Positive controls for negative checks: before a test concludes that an origin saw nothing,
/// it shows that the origin could have been reached and that its log is being written.
extension TestServers {
    /// The origins by IP literal (their certificate has IP SANs 127.0.0.21 and 127.0.0.22), so a
    /// direct connection could reach them: a fail-closed test aimed at them fails if anything
    /// goes direct, unlike one aimed at a name the client cannot resolve.
    public static let originAAddress = "127.0.0.21"
    public static let originBAddress = "127.0.0.22"

    /// The access log of the origin at `address` (127.0.0.21 or 127.0.0.22).
    public static func originLog(for address: String) -> URL { address == originBAddress ? originBLog : originALog }

    /// Fetches `https://<host>/index.html` with no relay at all (`host` defaults to `address`; a
    /// name is pinned to `address`) and waits for the request in that origin's log, from the
    /// client's own address. Call it after the attempt that must not reach the origin: it proves
    /// the target was directly reachable and that the log was live over that window, so finding no
    /// line for the attempt's marker means something.
    public static func proveDirectlyReachable(_ address: String, as host: String? = nil) async throws {
        let marker = marker("direct-control")
        var configuration = configuration(hops: [])
        if let host { configuration.directHostAddresses = ["\(host):443": address] }
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://\(host ?? address)/index.html?\(marker)")!)
        guard response.statusCode == 200, response.relayHops.isEmpty else {
            throw TestServerError(description: "control: a direct fetch of \(address) gave \(response.statusCode) via \(response.relayHops)")
        }
        let log = originLog(for: address)
        let lines = try waitForLogLines(log, containing: marker, skipping: 0, timeout: 5)
        guard lines.count == 1, lines[0].first == "127.0.0.1" else {
            throw TestServerError(description: "control: \(log.path) did not record the direct fetch \(marker): \(lines)")
        }
    }
}
