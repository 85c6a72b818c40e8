/// One CONNECT-UDP flow to one target: UDP payloads go out and come back as DATAGRAM capsules
/// on the stream (`ConnectUDPCapsuleCodec`). The stream is reliable, so nothing is lost on the
/// way to the relay; the relay's UDP leg may lose datagrams as any network does. Owns the stream.
/// Loop thread only.
package final class DatagramFlow: TransportLayerDelegate {
    private let stream: TransportLayer
    private var codec = ConnectUDPCapsuleCodec()
    private var onDatagram: (([UInt8]) -> Void)?
    private var onEnd: ((RelayError?) -> Void)?
    private var ended = false

    init(stream: TransportLayer) {
        self.stream = stream
    }

    /// The relay hop the flow goes through last, for errors and logs.
    package var hop: HopDescription { stream.hop }

    /// Starts delivering datagrams to `onDatagram`; `onEnd` hears once when the flow ends (nil:
    /// closed by us).
    package func start(onDatagram: @escaping ([UInt8]) -> Void, onEnd: @escaping (RelayError?) -> Void) {
        self.onDatagram = onDatagram
        self.onEnd = onEnd
        stream.delegate = self
    }

    package func send(_ payload: [UInt8]) {
        guard !ended else { return }
        var capsule: [UInt8] = []
        payload.withUnsafeBytes { ConnectUDPCapsuleCodec.append($0, to: &capsule) }
        stream.send(capsule)
    }

    package func close() { end(nil) }

    private func end(_ error: RelayError?) {
        guard !ended else { return }
        ended = true
        stream.delegate = nil
        stream.close()
        onDatagram = nil
        let report = onEnd
        onEnd = nil
        report?(error)
    }

    package func layerDidReceive(_ bytes: [UInt8]) {
        do throws(ConnectUDPCapsuleCodec.DecodeError) {
            for datagram in try codec.decode(bytes) { onDatagram?(datagram) }
        } catch {
            end(RelayError(hop: stream.hop, cause: .protocolError("CONNECT-UDP: \(error)")))
        }
    }

    package func layerDidReceiveEOF() { end(RelayError(hop: stream.hop, cause: .protocolError("relay ended the CONNECT-UDP stream"))) }

    package func layerDidFail(_ error: RelayError) { end(error) }
}
