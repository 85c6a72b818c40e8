#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Locking
import SystemIO

/// A request body read piece by piece while the transfer sends it (curl's `-T`, a multipart
/// form with files): a file is read only as fast as the connection takes its bytes, and a pipe
/// through a buffer of a few pieces that a reader thread fills, so a body of any size never sits
/// in memory and a slow network slows whoever writes into the pipe. Files (and regular files
/// behind a descriptor) are read again from their start when the body must be sent again (a
/// 307 or 308 redirect, a retry); a pipe is read once, and sending it again fails.
/// Owns the files it opened; a descriptor given to it stays the caller's.
public final class RequestBodyStream: Sendable {
    /// One piece of the body, in order.
    public enum Part: Sendable {
        case data(Data)
        /// A file by path, opened when the stream is made.
        case file(URL)
        /// An open descriptor read to its end: standard input, say (not closed here).
        case fileDescriptor(Int32)
    }

    /// What the sender gets for one read: bytes copied, the end, nothing yet (a pipe), or a failure.
    enum ReadResult: Equatable {
        case bytes(Int)
        case end
        case wait
        case failed(String)
    }

    /// The body's length when every part's is known (no pipe in it).
    public let length: Int?
    private let sources: [Source]
    private let state = Locked(State())
    /// Called (on a reader thread) when a pipe has bytes again after a read found none.
    let onReadable = Locked<(@Sendable () -> Void)?>(nil)

    private struct State {
        var part = 0
        var offset = 0
        var sent = 0
        var begun = false
        var waiting = false
        var failure: String?
    }

    /// Opens the files named; throws `FetchError` `.transfer` naming a file that cannot be read.
    public init(_ parts: [Part]) throws {
        var sources: [Source] = []
        for part in parts {
            switch part {
            case .data(let data): sources.append(.data(data))
            case .file(let url):
                let fd = open(url.path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw FetchError(.transfer("cannot read \(url.path): \(String(cString: strerror(errno)))"))
                }
                sources.append(Self.source(fd, owned: true))
            case .fileDescriptor(let fd): sources.append(Self.source(fd, owned: false))
            }
        }
        self.sources = sources
        var total = 0
        for source in sources {
            guard let size = source.size else { total = -1; break }
            total += size
        }
        length = total < 0 ? nil : total
        for case .pipe(let reader) in sources { reader.stream = self }
    }

    deinit {
        for case .file(let fd, _, _, true) in sources { close(fd) }
        for case .pipe(let reader) in sources { reader.stop() }
    }

    /// Body bytes handed to the sender so far (in the current sending).
    public var bytesSent: Int { state.withLock { $0.sent } }

    /// A regular file is read with pread from where it stood; anything else through a reader thread.
    private static func source(_ fd: Int32, owned: Bool) -> Source {
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            let start = max(0, Int(lseek(fd, 0, SEEK_CUR)))
            return .file(fd: fd, start: start, size: max(0, Int(info.st_size) - start), owned: owned)
        }
        return .pipe(PipeReader(fd: fd))
    }

    /// Starts a sending of the body from its first byte; false when it was sent before and a
    /// pipe in it cannot be read again.
    func begin() -> Bool {
        state.withLock { state in
            if state.begun, sources.contains(where: { if case .pipe = $0 { return true } else { return false } }) { return false }
            state = State(begun: true)
            return true
        }
    }

    /// Copies up to `count` bytes of the body into `buffer`. Called by the sender's thread only.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> ReadResult {
        state.withLock { state in
            while state.part < sources.count {
                let result = sources[state.part].read(into: buffer, count: count, at: state.offset)
                switch result {
                case .bytes(let n):
                    state.offset += n
                    state.sent += n
                    return result
                case .end:
                    state.part += 1
                    state.offset = 0
                case .wait:
                    state.waiting = true
                    return .wait
                case .failed(let why):
                    state.failure = why
                    return result
                }
            }
            return .end
        }
    }

    /// Whether a read found a pipe empty since the last call (and clears it): the sender is
    /// paused for the pipe's writer.
    func takeWaiting() -> Bool {
        state.withLock { state in
            defer { state.waiting = false }
            return state.waiting
        }
    }

    /// Why the last read failed, for the transfer's error.
    var failure: String? { state.withLock { $0.failure } }

    /// Whether the sender is paused for the pipe's writer (the silence is not the server's).
    var isWaiting: Bool { state.withLock { $0.waiting } }

    /// The whole body in memory, up to `limit` bytes (an Oblivious HTTP request is one sealed
    /// message); blocking reads of a pipe happen off the caller's thread.
    func collect(upTo limit: Int) async throws -> Data {
        guard begin() else { throw FetchError(.transfer("the request body (read from a pipe) cannot be sent again")) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                var data = Data()
                var piece = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let result = piece.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: $0.count) }
                    switch result {
                    case .bytes(let n):
                        guard data.count + n <= limit else {
                            return continuation.resume(throwing: FetchError(.transfer("the request body is larger than \(limit) bytes, "
                                                                                      + "the most one Oblivious HTTP message carries here")))
                        }
                        data.append(contentsOf: piece[..<n])
                    case .end: return continuation.resume(returning: data)
                    case .wait: _ = takeWaiting(); waitForPipes()
                    case .failed(let why): return continuation.resume(throwing: FetchError(.transfer(why)))
                    }
                }
            }
        }
    }

    /// Blocks until a pipe in the body has bytes again (after a read found it empty).
    func waitForPipes() { sources.forEach { $0.waitForBytes() } }

    fileprivate func readable() { onReadable.withLock { $0 }?() }

    private enum Source: Sendable {
        case data(Data)
        case file(fd: Int32, start: Int, size: Int, owned: Bool)
        case pipe(PipeReader)

        var size: Int? {
            switch self {
            case .data(let data): return data.count
            case .file(_, _, let size, _): return size
            case .pipe: return nil
            }
        }

        func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> ReadResult {
            switch self {
            case .data(let data):
                let n = min(count, data.count - offset)
                guard n > 0 else { return .end }
                data.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                return .bytes(n)
            case .file(let fd, let start, let size, _):
                let n = min(count, size - offset)
                guard n > 0 else { return .end }
                do {
                    let got = try systemCall("pread") { pread(fd, buffer, n, off_t(start + offset)) }
                    return got > 0 ? .bytes(got) : .failed("the file being sent got shorter while it was sent")
                } catch {
                    return .failed("cannot read the file being sent: \(error)")
                }
            case .pipe(let reader):
                return reader.take(into: buffer, count: count)
            }
        }

        func waitForBytes() { if case .pipe(let reader) = self { reader.waitForBytes() } }
    }
}

/// Reads a pipe on a thread of its own into a few pieces: it stops reading while they are full
/// (the writer then blocks: back-pressure), and tells the stream when bytes came after a wait.
private final class PipeReader: @unchecked Sendable {
    // @unchecked: every field below `condition` is guarded by it.
    private let condition = NSCondition()
    private var pieces: [Data] = []
    private var ended = false
    private var failure: String?
    private var started = false
    private var stopped = false
    private let fd: Int32
    weak var stream: RequestBodyStream?
    private static let pieceSize = 64 << 10
    private static let piecesHeld = 4

    init(fd: Int32) { self.fd = fd }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Copies what is buffered, starting the reader thread on the first call.
    func take(into buffer: UnsafeMutableRawPointer, count: Int) -> RequestBodyStream.ReadResult {
        condition.lock()
        defer { condition.unlock() }
        if !started {
            started = true
            Thread.detachNewThread { [self] in run() }
        }
        guard !pieces.isEmpty else {
            if let failure { return .failed(failure) }
            return ended ? .end : .wait
        }
        let n = min(count, pieces[0].count)
        pieces[0].withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
        if n == pieces[0].count { pieces.removeFirst() } else { pieces[0] = pieces[0].dropFirst(n) }
        condition.broadcast()
        return .bytes(n)
    }

    /// Blocks until a piece, the end or a failure is there.
    func waitForBytes() {
        condition.lock()
        while pieces.isEmpty && !ended && failure == nil && !stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        var piece = [UInt8](repeating: 0, count: Self.pieceSize)
        while true {
            condition.lock()
            while pieces.count >= Self.piecesHeld && !stopped { condition.wait() }
            let stop = stopped
            condition.unlock()
            if stop { return }
            let got: Int
            var readFailure: String?
            do {
                got = try systemCall("read") { piece.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            } catch {
                (got, readFailure) = (-1, "cannot read the body's input: \(error)")
            }
            condition.lock()
            if got > 0 { pieces.append(Data(piece[..<got])) } else if got == 0 { ended = true } else { failure = readFailure }
            condition.broadcast()
            let done = got <= 0
            condition.unlock()
            stream?.readable()
            if done { return }
        }
    }
}
