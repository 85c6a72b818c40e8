extension HTTPResponse {
    /// True for an HTTP/1.x response whose body has neither a length nor chunked framing, so
    /// only the end of the connection ends it (RFC 9112 §6.3).
    func bodyEndsAtConnectionClose(method: String) -> Bool {
        guard httpVersion.hasPrefix("HTTP/1"), method.uppercased() != "HEAD",
              !(100..<200).contains(statusCode), statusCode != 204, statusCode != 304 else { return false }
        if value(forHeaderField: "Content-Length") != nil { return false }
        if let coding = value(forHeaderField: "Transfer-Encoding"), coding.lowercased().contains("chunked") { return false }
        return true
    }
}
