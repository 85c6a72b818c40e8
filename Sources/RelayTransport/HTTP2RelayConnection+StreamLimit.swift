internal import CNghttp2

/// The relay's limit of concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS, RFC 9113 §5.1.2),
/// as the pool asks it: a connection never gets more streams than the relay allows. nghttp2
/// would hold the excess requests back itself, but then a tunnel waits there until another ends,
/// which for long-lived tunnels is never, while another connection could carry it.
extension HTTP2RelayConnection {
    /// The relay's advertised limit, or `assumedStreamLimit` before its SETTINGS arrived.
    var peerStreamLimit: Int {
        guard let session else { return 0 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    var hasFreeStream: Bool {
        isUsable && streams.count < min(peerStreamLimit, refusalCap ?? Int.max)
    }

    /// The relay's SETTINGS arrived: its limit may have changed, and a refusal's cap is stale.
    func receivedSettings() {
        refusalCap = nil
        peerSettingsSettled()
        streamMayBeAvailable()
    }

    /// Tells `onPeerSettings`, once.
    func peerSettingsSettled() {
        guard let settled = onPeerSettings else { return }
        onPeerSettings = nil
        settled()
    }

    /// A stream ended or the limit rose: `onStreamAvailable` hears at the end of the turn, out
    /// of nghttp2's callbacks, once however many ended.
    func streamMayBeAvailable() {
        guard !availabilityScheduled else { return }
        availabilityScheduled = true
        atEndOfTurn { [weak self] in
            guard let self else { return }
            self.availabilityScheduled = false
            self.onStreamAvailable?()
        }
    }
}
