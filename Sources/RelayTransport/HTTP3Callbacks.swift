internal import CNghttp3

/// nghttp3's callback table for an `HTTP3RelayConnection`. `user` is the connection,
/// unretained: it owns the nghttp3 connection. The callbacks run inside ngtcp2's, so they only
/// change state and queue events (and ask ngtcp2 for stream shutdowns, which only queue frames).
enum HTTP3Callbacks {
    static func make() -> nghttp3_callbacks {
        var callbacks = nghttp3_callbacks()
        callbacks.acked_stream_data = { _, id, count, user, _ in
            guard let stream = connection(user).stream(id) else { return 0 }
            stream.outgoing.acknowledge(Int(count))
            stream.contentAcknowledged()  // at most starts a read off the loop: nothing re-enters nghttp3
            return 0
        }
        callbacks.stream_close = { _, id, code, user, _ in
            connection(user).streamClosed(id, code: code)
            return 0
        }
        callbacks.recv_data = { _, id, data, length, user, _ in
            // Guaranteed, not retained per call (once per packet of content): it owns the nghttp3 connection.
            Unmanaged<HTTP3RelayConnection>.fromOpaque(user!)._withUnsafeGuaranteedRef { owner in
                if let data, let stream = owner.stream(id) {
                    stream.receivedData(UnsafeBufferPointer(start: data, count: length))
                } else {
                    owner.quic.extendCredit(stream: id, by: length)  // nobody reads it: do not stall the connection
                }
            }
            return 0
        }
        callbacks.deferred_consume = { _, id, consumed, user, _ in
            connection(user).quic.extendCredit(stream: id, by: consumed)
            return 0
        }
        callbacks.recv_header = { _, id, token, name, value, _, user, _ in
            guard let name, let value, let stream = connection(user).stream(id) else { return 0 }
            let nameBytes = nghttp3_rcbuf_get_buf(name), bytes = nghttp3_rcbuf_get_buf(value)
            let text = String(decoding: UnsafeBufferPointer(start: bytes.base, count: bytes.len), as: UTF8.self)
            stream.receivedField(name: String(decoding: UnsafeBufferPointer(start: nameBytes.base, count: nameBytes.len), as: UTF8.self), value: text)
            if token == Int32(NGHTTP3_QPACK_TOKEN__STATUS.rawValue) { stream.receivedStatus(Int(text) ?? 0) }
            return 0
        }
        callbacks.end_headers = { _, id, _, user, _ in
            connection(user).stream(id)?.headersComplete()
            return 0
        }
        callbacks.end_stream = { _, id, user, _ in
            connection(user).stream(id)?.receivedEnd()
            return 0
        }
        callbacks.stop_sending = { _, id, code, user, _ in
            connection(user).quic.stopReading(stream: id, applicationError: code)
            return 0
        }
        callbacks.reset_stream = { _, id, code, user, _ in
            connection(user).quic.stopWriting(stream: id, applicationError: code)
            return 0
        }
        callbacks.shutdown = { _, id, user in
            connection(user).goAway(from: id)
            return 0
        }
        return callbacks
    }
}

// Free functions, so the callback closures capture nothing and convert to C function pointers.
private func connection(_ user: UnsafeMutableRawPointer?) -> HTTP3RelayConnection {
    Unmanaged<HTTP3RelayConnection>.fromOpaque(user!).takeUnretainedValue()
}

/// A stream's data reader: hands nghttp3 the tunnel bytes (or request content) waiting to go out,
/// and ends the stream once a request's content is all out.
func h3ReadData(_ http3: OpaquePointer?, _ id: Int64, _ vectors: UnsafeMutablePointer<nghttp3_vec>?, _ capacity: Int,
                _ flags: UnsafeMutablePointer<UInt32>?, _ user: UnsafeMutableRawPointer?, _ streamUser: UnsafeMutableRawPointer?) -> nghttp3_ssize {
    guard let vectors, let stream = connection(user).stream(id), !stream.ended else { return nghttp3_ssize(NGHTTP3_ERR_WOULDBLOCK) }
    let buffers = stream.outgoing.handOut(limit: capacity)
    if stream.contentComplete && !stream.outgoing.hasUnsent { flags?.pointee |= UInt32(NGHTTP3_DATA_FLAG_EOF) }
    guard !buffers.isEmpty || stream.contentComplete else { return nghttp3_ssize(NGHTTP3_ERR_WOULDBLOCK) }
    for (index, buffer) in buffers.enumerated() {
        vectors[index] = nghttp3_vec(base: UnsafeMutablePointer(mutating: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)), len: buffer.count)
    }
    return buffers.count
}
