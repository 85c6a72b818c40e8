/// Where a streamed request's content comes from: the next piece of it, or nil at its end.
/// Called again only after the previous call returned; it may block on a file or a pipe, so
/// the caller runs it off the loop.
package typealias HTTP3ContentSource = @Sendable () async throws -> [UInt8]?

/// Feeds a request stream's content from an `HTTP3ContentSource` into its send buffer, a piece
/// at a time and only while the buffer holds less than `window` bytes (sent and not yet
/// acknowledged, or not sent yet): the origin's flow control and acknowledgements set the pace,
/// so an upload of any size holds about `window` bytes in memory. One read is in flight at a
/// time, off the loop; its piece comes back through the loop. Loop thread only, but for the
/// read task, which touches only `source` and `loop`.
final class HTTP3ContentPump: @unchecked Sendable {
    /// Bytes held for one upload before the next piece is read: enough to keep a fast path busy
    /// for a few round trips on loopback, small next to any body worth streaming.
    static let window = 4 << 20

    private let source: HTTP3ContentSource
    private let loop: EventLoop
    /// The stream the pieces go to; cleared when it ends, so a late piece goes nowhere.
    private weak var stream: HTTP3RequestStream?
    private var reading = false
    /// True once the source said it has no more: the stream ends after what is buffered.
    private(set) var complete = false

    init(source: @escaping HTTP3ContentSource, loop: EventLoop, stream: HTTP3RequestStream) {
        self.source = source
        self.loop = loop
        self.stream = stream
    }

    /// Reads the next piece unless one is being read, the content is all read, or the buffer is full.
    func pull() {
        guard !reading, !complete, let stream, !stream.ended, stream.outgoing.heldBytes < Self.window else { return }
        reading = true
        let (source, loop) = (source, loop)
        Task {
            let result: Result<[UInt8]?, any Error>
            do { result = .success(try await source()) } catch { result = .failure(error) }
            _ = loop.execute { self.arrived(result) }
        }
    }

    private func arrived(_ result: Result<[UInt8]?, any Error>) {
        reading = false
        guard let stream, !stream.ended else { return }
        switch result {
        case .success(let piece?):
            stream.outgoing.append(piece)
            stream.contentAdvanced()
            pull()
        case .success(nil):
            complete = true
            stream.contentAdvanced()
        case .failure(let error):
            stream.contentFailed(error)
        }
    }
}
