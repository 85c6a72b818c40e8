import Foundation
import RelayFetch

extension GetCommand {
    /// Tries `get` makes in all when a connection is lost mid-file under `-C -`.
    static let resumeAttempts = 5

    /// How one try ended: delivered (body written), or an answer --retry wants to try again,
    /// its body not yet read (written after all when no retry is left).
    struct Outcome {
        enum Kind {
            case delivered
            case retry(HTTPResponse, ResponseBody, resumeOffset: Int?)
        }
        var response: HTTPResponse
        var bodyBytes = 0
        var kind = Kind.delivered
    }

    /// Where a body that is not written to a file goes, and what counts it.
    final class OutputSink {
        let emit: @Sendable (Data) -> Void
        let meter: ProgressMeter?
        private(set) var written = 0

        init(emit: @escaping @Sendable (Data) -> Void, meter: ProgressMeter?) {
            self.emit = emit
            self.meter = meter
        }

        func write(_ data: Data) {
            written += data.count
            emit(data)
        }
    }

    /// Fetches `request` into standard output or the target's file. Under -C -, a transfer that
    /// fails after some bytes arrived is resumed where it stopped.
    func transfer(_ request: HTTPRequest, to target: Target, session: Session, io: CommandIO, sink: OutputSink,
                  retryable: (Int) -> Bool) async throws -> Outcome {
        let file = target.outputPath.map { URL(fileURLWithPath: $0) }
        var attempt = 1
        while true {
            let before = file.flatMap { DownloadFile.resumption(of: $0)?.offset } ?? 0
            do {
                return try await transferOnce(request, file: file, session: session, io: io, sink: sink, retryable: retryable)
            } catch let error as FetchError where resume && attempt < Self.resumeAttempts && Self.isResumable(error) {
                let after = file.flatMap { DownloadFile.resumption(of: $0)?.offset } ?? 0
                guard after > before else { throw error }
                attempt += 1
                if verbose { io.log("* \(error); resuming from byte \(after) (try \(attempt) of \(Self.resumeAttempts))") }
            }
        }
    }

    /// A failure worth resuming after: the connection or a relay went away, not a limit or a refusal.
    private static func isResumable(_ error: FetchError) -> Bool {
        switch error.code {
        case .relay, .transfer, .idleTimeout: return true
        default: return false
        }
    }

    private func transferOnce(_ original: HTTPRequest, file: URL?, session: Session, io: CommandIO, sink: OutputSink,
                              retryable: (Int) -> Bool) async throws -> Outcome {
        var request = original
        let resumption = resume ? file.flatMap(DownloadFile.resumption(of:)) : nil
        if let resumption { request.headerFields += resumption.headerFields }
        let (body, response) = try await session.bytes(for: request)
        if verbose { io.log("< \(response.httpVersion) \(response.statusCode) from \(response.url.absoluteString)") }
        if retryable(response.statusCode) { return Outcome(response: response, kind: .retry(response, body, resumeOffset: resumption?.offset)) }
        return try await deliver(response, body: body, file: file, method: request.method, resumeOffset: resumption?.offset, io: io, sink: sink)
    }

    /// Writes the answer: -i/-I's head, then the body, to standard output or the file.
    func deliver(_ response: HTTPResponse, body: ResponseBody, file target: URL?, method: String, resumeOffset: Int?,
                 io: CommandIO, sink: OutputSink) async throws -> Outcome {
        defer { body.cancel() }
        // -f: an error answer writes nothing, neither to standard output nor to FILE (run() exits 1).
        if failOnHTTPError && response.statusCode >= 400 { return Outcome(response: response) }
        sink.meter?.expect(response.value(forHeaderField: "Content-Length").flatMap(Int.init))
        let head = includeHeaders || request.head ? TransferReport.head(of: response) : nil
        guard let target else {
            if let head { sink.write(head) }
            var count = 0
            for try await chunk in body.chunks {
                sink.write(chunk)
                sink.meter?.received(chunk.count)
                count += chunk.count
            }
            if verbose { io.log("* \(count) bytes") }
            return Outcome(response: response, bodyBytes: count)
        }
        let file: DownloadFile
        switch resumeOffset.map({ ResumeDecision.decide(status: response.statusCode, contentRange: response.value(forHeaderField: "Content-Range"),
                                                        offset: $0) }) ?? .replace {
        case .alreadyComplete:
            if verbose { io.log("* \(target.path) is already complete") }
            return Outcome(response: response)
        case .fail(let why):
            throw GetFailure(description: "cannot resume \(target.path): \(why)")
        case .refuse(let status):
            throw GetFailure(description: "cannot resume \(target.path): the server answered \(status) for "
                                          + "\(response.url.absoluteString); the file is left as it was")
        case .append:
            file = try DownloadFile(appendingTo: target)
            if verbose { io.log("* resuming \(target.path) from byte \(resumeOffset ?? 0)") }
        case .replace:
            file = try DownloadFile(replacing: target)
        }
        let entityTag = response.value(forHeaderField: "ETag")
        do {
            if let head { try file.write(head) }
            let headSize = file.bytesWritten
            if let meter = sink.meter {
                // The meter counts chunks: the faster direct write would not show progress.
                for try await chunk in body.chunks {
                    try file.write(chunk)
                    meter.received(chunk.count)
                }
            } else {
                try await body.write(to: file)
            }
            try file.commit(modificationDate: response.lastModified, entityTag: entityTag)
            if verbose { io.log("* \(file.bytesWritten) bytes written to \(target.path)") }
            return Outcome(response: response, bodyBytes: file.bytesWritten - headSize)
        } catch {
            // Under -C -, what arrived is kept too: it is what the next try continues from.
            if keepPartial || (resume && file.bytesWritten > 0 && !Self.isSizeLimit(error)) {
                try? file.commit(modificationDate: response.lastModified, entityTag: entityTag)
            } else {
                file.discard()
            }
            throw error
        }
    }

    static func isSizeLimit(_ error: Error) -> Bool {
        if let fetch = error as? FetchError, case .responseTooLarge = fetch.code { return true }
        return false
    }
}
