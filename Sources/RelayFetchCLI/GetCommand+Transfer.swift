import Foundation
import RelayFetch

extension GetCommand {
    /// Tries `get` makes in all when a connection is lost mid-file under `-C -`.
    static let resumeAttempts = 5

    /// Fetches the URL into standard output or the -o file; returns the final response.
    /// Under -C -, a transfer that fails after some bytes arrived is resumed where it stopped.
    func transfer(session: Session, io: CommandIO) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let before = outputPath.flatMap { DownloadFile.resumption(of: URL(fileURLWithPath: $0))?.offset } ?? 0
            do {
                return try await transferOnce(session: session, io: io)
            } catch let error as FetchError where resume && attempt < Self.resumeAttempts && Self.isResumable(error) {
                let after = outputPath.flatMap { DownloadFile.resumption(of: URL(fileURLWithPath: $0))?.offset } ?? 0
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

    private func transferOnce(session: Session, io: CommandIO) async throws -> HTTPResponse {
        var request = HTTPRequest(url: url, headerFields: headers)
        request.maximumBodySize = maximumFileSize
        let target = outputPath.map { URL(fileURLWithPath: $0) }
        let resumption = resume ? target.flatMap(DownloadFile.resumption(of:)) : nil
        if let resumption { request.headerFields += resumption.headerFields }
        let (body, response) = try await session.bytes(for: request)
        defer { body.cancel() }
        if verbose { io.log("< \(response.httpVersion) \(response.statusCode) from \(response.url.absoluteString)") }
        // -f: an error answer writes nothing, neither to standard output nor to FILE (run() exits 1).
        if failOnHTTPError && response.statusCode >= 400 { return response }
        guard let target else {
            if includeHeaders { io.write(head(of: response)) }
            var count = 0
            for try await chunk in body.chunks {
                io.write(chunk)
                count += chunk.count
            }
            if verbose { io.log("* \(count) bytes") }
            return response
        }
        let file: DownloadFile
        switch resumption.map({ ResumeDecision.decide(status: response.statusCode, contentRange: response.value(forHeaderField: "Content-Range"),
                                                      offset: $0.offset) }) ?? .replace {
        case .alreadyComplete:
            if verbose { io.log("* \(target.path) is already complete") }
            return response
        case .fail(let why):
            throw GetFailure(description: "cannot resume \(target.path): \(why)")
        case .refuse(let status):
            throw GetFailure(description: "cannot resume \(target.path): the server answered \(status) for "
                                          + "\(response.url.absoluteString); the file is left as it was")
        case .append:
            file = try DownloadFile(appendingTo: target)
            if verbose { io.log("* resuming \(target.path) from byte \(resumption!.offset)") }
        case .replace:
            file = try DownloadFile(replacing: target)
        }
        let entityTag = response.value(forHeaderField: "ETag")
        do {
            if includeHeaders { try file.write(head(of: response)) }
            try await body.write(to: file)
            try file.commit(modificationDate: response.lastModified, entityTag: entityTag)
        } catch {
            // Under -C -, what arrived is kept too: it is what the next try continues from.
            if keepPartial || (resume && file.bytesWritten > 0 && !Self.isSizeLimit(error)) {
                try? file.commit(modificationDate: response.lastModified, entityTag: entityTag)
            } else {
                file.discard()
            }
            throw error
        }
        if verbose { io.log("* \(file.bytesWritten) bytes written to \(target.path)") }
        return response
    }

    private static func isSizeLimit(_ error: Error) -> Bool {
        if let fetch = error as? FetchError, case .responseTooLarge = fetch.code { return true }
        return false
    }

    /// The status line and header fields, as -i prints them before the body.
    private func head(of response: HTTPResponse) -> Data {
        var text = "\(response.httpVersion) \(response.statusCode)\r\n"
        for field in response.headerFields { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }
}
