/// The bytes one HTTP/3 stream sends, kept until the relay acknowledges them: nghttp3 and ngtcp2
/// send (and resend after a loss) straight from this memory, without copies of their own.
/// Owns the chunks; frees each once acknowledged and the rest in deinit, which must come after
/// the QUIC connection stopped sending (the stream has closed, or the connection has).
final class HTTP3SendBuffer {
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// How many chunks from the front nghttp3 has taken (sent or in flight).
    private var handedOut = 0
    /// Bytes of the first chunk already acknowledged.
    private var acknowledgedInFirst = 0

    deinit { for chunk in chunks { chunk.deallocate() } }

    var hasUnsent: Bool { handedOut < chunks.count }
    /// Bytes appended and not handed out yet: what waits for the relay's flow control.
    private(set) var unsentBytes = 0
    /// Bytes held: not handed out yet, or handed out and not acknowledged.
    private(set) var heldBytes = 0

    func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        chunk.copyBytes(from: bytes)
        chunks.append(chunk)
        unsentBytes += bytes.count
        heldBytes += bytes.count
    }

    /// Up to `limit` chunks not handed out yet; from now on they count as handed out.
    func handOut(limit: Int) -> [UnsafeRawBufferPointer] {
        let end = min(chunks.count, handedOut + limit)
        let taken = chunks[handedOut..<end].map { UnsafeRawBufferPointer($0) }
        handedOut = end
        unsentBytes -= taken.reduce(0) { $0 + $1.count }
        return taken
    }

    /// The relay acknowledged the next `count` bytes handed out: free what is done.
    func acknowledge(_ count: Int) {
        var left = count
        heldBytes -= count
        while left > 0, let first = chunks.first, handedOut > 0 {
            let remaining = first.count - acknowledgedInFirst
            if left < remaining {
                acknowledgedInFirst += left
                return
            }
            left -= remaining
            first.deallocate()
            chunks.removeFirst()
            handedOut -= 1
            acknowledgedInFirst = 0
        }
    }
}
