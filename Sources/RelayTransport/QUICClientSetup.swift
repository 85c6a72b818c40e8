internal import CNgtcp2

/// How our QUIC client connections start: ngtcp2 settings, the transport parameters we
/// announce (flow-control windows, stream limits, idle timeout) and random connection IDs.
enum QUICClientSetup {
    /// Flow-control windows we grant the relay: per stream and for the whole connection.
    static let streamWindow: UInt64 = 1 << 20
    static let connectionWindow: UInt64 = 16 << 20
    /// The largest UDP payload we take (max_udp_payload_size): relays send 1200-1500 bytes.
    static let largestDatagram = 4096
    /// Packets with frames to acknowledge that we receive before we acknowledge at once (else
    /// within max_ack_delay, 25 ms). ngtcp2's default of 2 means an ACK for every second packet of
    /// a download, and a relay spends its CPU reading them: paired runs through the aioquic
    /// relays (Benchmarks/bulk/README.md) had the relays use about a fifth less CPU per MiB at 16
    /// and the transfers go faster; at 32 they went slower.
    static let ackThreshold = 16

    /// A client connection on `path` with our settings and transport parameters; `user` is
    /// the QUICConnection the callbacks reach.
    static func makeConnection(path: UnsafePointer<ngtcp2_path>, handshakeTimeout: Double, hop: HopDescription,
                               user: UnsafeMutableRawPointer) throws(RelayError) -> OpaquePointer {
        var settings = ngtcp2_settings()
        rf_ngtcp2_settings_default(&settings)
        settings.initial_ts = EventLoop.nowNanos()
        settings.handshake_timeout = UInt64(handshakeTimeout * 1e9)
        settings.ack_thresh = ackThreshold
        var params = ngtcp2_transport_params()
        rf_ngtcp2_transport_params_default(&params)
        params.initial_max_stream_data_bidi_local = streamWindow
        params.initial_max_stream_data_uni = streamWindow
        params.initial_max_data = connectionWindow
        params.initial_max_streams_bidi = 0  // HTTP/3 servers open no request streams
        params.initial_max_streams_uni = 3   // the relay's control and QPACK streams
        params.max_idle_timeout = 60 * UInt64(NGTCP2_SECONDS)
        params.max_udp_payload_size = UInt64(largestDatagram)
        var callbacks = QUICCallbacks.make()
        var destination = ngtcp2_cid(), source = ngtcp2_cid()
        guard randomID(&destination, length: 18), randomID(&source, length: 17) else {
            throw RelayError(hop: hop, cause: .tls("GnuTLS: no random bytes for connection IDs"))
        }
        var made: OpaquePointer?
        let rc = rf_ngtcp2_conn_client_new(&made, &destination, &source, path, UInt32(NGTCP2_PROTO_VER_V1),
                                           &callbacks, &settings, &params, user)
        guard rc == 0, let made else {
            throw RelayError(hop: hop, cause: .protocolError("ngtcp2: \(String(cString: ngtcp2_strerror(rc)))"))
        }
        return made
    }

    static func randomID(_ id: inout ngtcp2_cid, length: Int) -> Bool {
        var bytes = [UInt8](repeating: 0, count: length)
        guard gnutls_rnd(GNUTLS_RND_RANDOM, &bytes, length) == 0 else { return false }
        ngtcp2_cid_init(&id, bytes, length)
        return true
    }
}
