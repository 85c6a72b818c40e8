import Foundation

extension Session {
    /// Sends `request`, following redirects as configured, and returns once the final response's
    /// head has arrived; its body streams through the returned `ResponseBody` as the reader takes
    /// it (URLSession's `bytes(for:)`). The body has no size limit unless the request sets
    /// `maximumBodySize`, and the session's time limit (`requestTimeout`) applies as to `data`;
    /// set it to `.infinity` for transfers of any length (the idle timeout still ends a stalled
    /// one). Streamed responses bypass the session's HTTP cache (cookies still apply). A host
    /// with capitals is taken in lower case, as by `data(for:)`.
    /// Throws what `data(for:)` throws up to the response head; later errors come from the body.
    public func bytes(for request: HTTPRequest) async throws -> (ResponseBody, HTTPResponse) {
        var current = try Self.entering(request)
        var chain = RedirectChain(current, configuration: configuration)
        while true {
            let (body, response) = try await chain.within { try await streamingExchange(chain.timed(current), timeLimit: chain.timeLimit) }
            guard let next = try chain.next(after: response, to: current) else {
                var response = response
                response.redirectCount = chain.followed
                return (body, response)
            }
            // A redirect's own body is small, if any: read it (so the connection can be reused)
            // unless it turns out large, then cut it.
            _ = try? await body.collect(upTo: 64 << 10)
            current = try Self.entering(next)
        }
    }

    /// Fetches `request` into a file at `destination`, replacing it only when the whole body has
    /// arrived (written under a temporary name next to it, then linked into place: a failed
    /// transfer leaves no partial file). The file's modification time is the response's
    /// Last-Modified, when it has one, and a strong ETag is kept with it (for
    /// `DownloadFile.resumption(of:)`). Returns the final response; throws as `bytes(for:)`
    /// does, and when the file cannot be written.
    public func download(for request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        let (body, response) = try await bytes(for: request)
        let file = try DownloadFile(replacing: destination)
        do {
            try await body.write(to: file)
            try file.commit(modificationDate: response.lastModified, entityTag: response.value(forHeaderField: "ETag"))
        } catch {
            body.cancel()
            file.discard()
            throw error
        }
        return response
    }

    /// One exchange whose body streams into a bounded buffer; returns at the response head. Its
    /// time limit is what is left of the request's, so running out mid-body is reported as the
    /// request's `timeLimit`.
    private func streamingExchange(_ original: HTTPRequest, timeLimit: Double) async throws -> (ResponseBody, HTTPResponse) {
        await learnServiceBinding(for: original.url)
        return try await failingOver(original) { try await $0.streamingExchange(original, in: self, timeLimit: timeLimit) }
    }
}

extension HTTPResponse {
    /// The Last-Modified date, when the response has a valid one.
    public var lastModified: Date? { value(forHeaderField: "Last-Modified").flatMap(HTTPDate.parse) }

    /// An HTTP date (RFC 9110 §5.6.7) in any of its forms, as Last-Modified, Expires or
    /// Retry-After carry it; nil for anything else (read by hand: no locale data, no trap on
    /// bytes a server made up).
    public static func date(fromHTTPDate text: String) -> Date? { HTTPDate.parse(text) }
}
