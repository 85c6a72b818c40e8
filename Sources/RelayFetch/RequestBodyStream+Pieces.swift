import Dispatch
import Foundation
import Locking
import RelayTransport

extension RequestBodyStream {
    /// How much one read takes from the body for a sender that pulls pieces (HTTP/3).
    static let pieceSize = 256 << 10

    /// The body as a source of pieces for a sender that pulls (an HTTP/3 request stream): each
    /// call reads the next piece, nil at the end. Reads block on a file or a pipe, so they run on
    /// a queue of the source's own, never on the caller's thread. The first call begins a
    /// sending of the body; throws `FetchError` `.transfer` when a pipe was sent before or a
    /// read fails.
    func pieces() -> HTTP3ContentSource {
        let queue = DispatchQueue(label: "relayfetch.request-body")
        let begun = Locked(false)
        return { [self] in
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    let first = begun.withLock { begun in defer { begun = true }; return !begun }
                    if first, !begin() {
                        return continuation.resume(throwing: FetchError(.transfer("the request body (read from a pipe) cannot be sent again")))
                    }
                    continuation.resume(with: readPiece())
                }
            }
        }
    }

    /// The next piece, waiting for a pipe's writer when it has nothing yet.
    private func readPiece() -> Result<[UInt8]?, any Error> {
        var piece = [UInt8](repeating: 0, count: Self.pieceSize)
        while true {
            let result = piece.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: $0.count) }
            switch result {
            case .bytes(let n):
                piece.removeSubrange(n...)
                return .success(piece)
            case .end: return .success(nil)
            case .wait:
                _ = takeWaiting()
                waitForPipes()
            case .failed(let why): return .failure(FetchError(.transfer(why)))
            }
        }
    }
}
