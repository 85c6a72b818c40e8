/// Receives what the layer below delivers. Called on the event loop.
package protocol TransportLayerDelegate: AnyObject {
    func layerDidReceive(_ bytes: [UInt8])
    /// The peer finished sending (clean end of stream).
    func layerDidReceiveEOF()
    func layerDidFail(_ error: RelayError)
}

/// One hop of a transport stack, like a curl connection filter: it connects over the layer below,
/// then only passes bytes on. All methods run on the event loop.
package protocol TransportLayer: AnyObject {
    /// Which hop this layer speaks to, for errors and `-v` output.
    var hop: HopDescription { get }
    /// The layer (or bridge) above that receives this layer's bytes.
    var delegate: TransportLayerDelegate? { get set }
    /// Runs this layer's own handshake; the layer below is already connected.
    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void)
    func send(_ bytes: [UInt8])
    /// Closes this layer first, then the ones below.
    func close()
    /// Stops (or resumes) delivery from below, so a slow reader never makes us buffer without bound.
    func setReadingPaused(_ paused: Bool)
    /// Bytes given to `send` that have not yet left the bottom of the stack, so a sender that
    /// reads from somewhere faster (the bridge, from libcurl) can wait for them to drain; 0 where
    /// a layer cannot tell.
    var queuedBytes: Int { get }
}

extension TransportLayer {
    package var queuedBytes: Int { 0 }
}
