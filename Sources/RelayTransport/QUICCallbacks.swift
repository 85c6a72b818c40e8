internal import CNgtcp2

/// ngtcp2's callback table for a `QUICConnection`: the crypto helper's callbacks for the
/// handshake and packet protection, and ours for randomness and stream events, which go to the
/// connection's application. `user` is the QUICConnection, unretained: it owns the ngtcp2_conn.
enum QUICCallbacks {
    static func make() -> ngtcp2_callbacks {
        var callbacks = ngtcp2_callbacks()
        callbacks.client_initial = ngtcp2_crypto_client_initial_cb
        callbacks.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb
        callbacks.encrypt = ngtcp2_crypto_encrypt_cb
        callbacks.decrypt = ngtcp2_crypto_decrypt_cb
        callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb
        callbacks.recv_retry = ngtcp2_crypto_recv_retry_cb
        callbacks.update_key = ngtcp2_crypto_update_key_cb
        callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb
        callbacks.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb
        callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb
        callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb
        callbacks.rand = { destination, length, _ in _ = gnutls_rnd(GNUTLS_RND_RANDOM, destination, length) }
        callbacks.get_new_connection_id = { _, id, token, length, _ in
            guard let id, let token, QUICClientSetup.randomID(&id.pointee, length: length),
                  gnutls_rnd(GNUTLS_RND_RANDOM, token, Int(NGTCP2_STATELESS_RESET_TOKENLEN)) == 0 else { return NGTCP2_ERR_CALLBACK_FAILURE }
            return 0
        }
        callbacks.handshake_completed = { _, user in
            let owner = connection(user)
            do throws(RelayError) {
                try owner.handshakeCompleted()
                return 0
            } catch {
                owner.callbackError = error
                return NGTCP2_ERR_CALLBACK_FAILURE
            }
        }
        callbacks.recv_stream_data = { _, flags, id, _, data, length, user, _ in
            let fin = flags & UInt32(NGTCP2_STREAM_DATA_FLAG_FIN) != 0
            return run(user) { app throws(RelayError) in try app.quicReceived(UnsafeBufferPointer(start: data, count: length), fin: fin, onStream: id) }
        }
        callbacks.acked_stream_data_offset = { _, id, _, length, user, _ in
            run(user) { app throws(RelayError) in try app.quicAcknowledged(length, onStream: id) }
        }
        callbacks.stream_close = { _, flags, id, code, user, _ in
            let hasCode = flags & UInt32(NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) != 0
            return run(user) { app throws(RelayError) in try app.quicStreamClosed(id, applicationError: hasCode ? code : nil) }
        }
        callbacks.stream_reset = { _, id, _, code, user, _ in
            run(user) { app throws(RelayError) in try app.quicStreamAborted(id, applicationError: code) }
        }
        callbacks.stream_stop_sending = { _, id, code, user, _ in
            run(user) { app throws(RelayError) in try app.quicStreamAborted(id, applicationError: code) }
        }
        callbacks.extend_max_stream_data = { _, id, _, user, _ in
            run(user) { app throws(RelayError) in try app.quicStreamUnblocked(id) }
        }
        callbacks.extend_max_local_streams_bidi = { _, _, user in
            connection(user).application?.quicMoreStreamsAllowed()
            return 0
        }
        return callbacks
    }
}

// Free functions, so the callback closures capture nothing and convert to C function pointers.
private func connection(_ user: UnsafeMutableRawPointer?) -> QUICConnection {
    Unmanaged<QUICConnection>.fromOpaque(user!).takeUnretainedValue()
}

/// Runs an application event; a thrown error is kept to explain the failure ngtcp2 reports.
/// The connection is used as guaranteed (no retain and release per event: stream data comes
/// once per packet); it owns the ngtcp2_conn that calls, so it is alive.
private func run(_ user: UnsafeMutableRawPointer?, _ event: (QUICApplication) throws(RelayError) -> Void) -> Int32 {
    Unmanaged<QUICConnection>.fromOpaque(user!)._withUnsafeGuaranteedRef { owner in
        guard let application = owner.application else { return 0 }
        do throws(RelayError) {
            try event(application)
            return 0
        } catch {
            owner.callbackError = error
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
    }
}
