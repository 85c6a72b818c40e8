import Foundation
internal import CCurl

/// A transfer whose request body is a `RequestBodyStream`: libcurl asks for each piece as it
/// can send it (CURLOPT_READFUNCTION), so the body is read no faster than the connection takes
/// it, and a pipe with nothing yet pauses the transfer until its writer catches up.
extension CurlTransfer {
    /// Sends `stream` as the body from its first byte; throws when it was sent before and a pipe
    /// in it cannot be read again (a redirect or retry of a body read from standard input).
    func configureUpload(_ stream: RequestBodyStream) throws(FetchError) {
        guard stream.begin() else {
            throw FetchError(.transfer("the request body was read from a pipe and cannot be sent a second time "
                                       + "(for a redirect or a retry): send a file instead"))
        }
        let me = unretainedPointer
        _ = rf_curl_easy_setopt_write(easy, CURLOPT_READFUNCTION, curlReadBody)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_READDATA, me)
        _ = rf_curl_easy_setopt_seek(easy, curlSeekBody)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_SEEKDATA, me)
        // UPLOAD sends the body whatever the method (set apart as CURLOPT_CUSTOMREQUEST); an
        // unknown length goes chunked over HTTP/1.1.
        setLong(CURLOPT_UPLOAD, 1)
        _ = rf_curl_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(stream.length ?? -1))
    }

    /// Whether the sender waits for a pipe's writer: silence then is not the server's.
    var waitsForRequestBody: Bool { request.bodyStream?.isWaiting == true }

    /// Clears the "paused for the pipe" mark; true when it was set (the engine then unpauses).
    func takeRequestBodyWait() -> Bool { request.bodyStream?.takeWaiting() == true }

    /// Fills libcurl's buffer; returns the count, 0 at the end, or CURL_READFUNC_PAUSE / _ABORT.
    fileprivate func readBody(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard let stream = request.bodyStream else { return 0 }
        switch stream.read(into: buffer, count: count) {
        case .bytes(let n):
            idleClock.touch()
            return n
        case .end: return 0
        case .wait: return rf_curl_readfunc_pause()
        case .failed: return rf_curl_readfunc_abort()  // the stream keeps why, for the error
        }
    }

    /// libcurl rewinds to send the body again on the same transfer (a refused HTTP/2 stream).
    fileprivate func rewindBody(to offset: Int64) -> Int32 {
        guard offset == 0, let stream = request.bodyStream, stream.begin() else { return CURL_SEEKFUNC_CANTSEEK }
        return CURL_SEEKFUNC_OK
    }
}

// libcurl's C callbacks; each receives the transfer as an unretained pointer (the engine owns it).
private func curlReadBody(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return rf_curl_readfunc_abort() }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().readBody(UnsafeMutableRawPointer(buffer), size * count)
}

private func curlSeekBody(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().rewindBody(to: Int64(offset))
}
