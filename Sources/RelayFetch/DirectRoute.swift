import HTTPCore
import Foundation
import RelayTransport

/// Straight to the origin, for hosts no relay configuration covers in a session that allows
/// it: libcurl connects itself, to addresses the session resolved (a relay's DoH resolver, else
/// the privacy context's) or that the configuration pins, so it looks nothing up on its own.
struct DirectRoute: CurlRoute {
    var hopNames: [String] { [] }
    var libcurlSpeaksOriginTLS: Bool { true }

    /// The host's addresses from the session's resolver; [] for IP literals, hosts the
    /// configuration pins (`directHostAddresses`), or with no resolver (libcurl asks the system).
    func pinnedAddresses(for url: URL, in session: Session) async throws(FetchError) -> [String] {
        guard let nameResolver = session.directNameResolver ?? session.nameResolver, let host = url.host else { return [] }
        if session.configuration.directHostAddress(host: host, port: url.portOrDefault) != nil { return [] }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if SocketAddress.literal(bare, port: 0) != nil { return [] }
        return try await nameResolver.pinnedAddresses(for: bare) ?? []
    }

    func configure(_ transfer: CurlTransfer, configuration: Session.Configuration, pinnedAddresses: [String]) {
        guard let host = transfer.request.url.host else { return }
        let port = transfer.request.url.portOrDefault
        transfer.pin(host, port: port, to: configuration.directHostAddress(host: host, port: port).map { [$0] } ?? pinnedAddresses)
    }
}
