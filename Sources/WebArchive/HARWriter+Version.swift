extension HARWriter {
    /// An exchange's HTTP version as HAR files name it: "h3" for HTTP/3 (as browsers write it, so
    /// HAR readers tell QUIC exchanges apart), the others as the response gave them.
    static func version(_ httpVersion: String) -> String {
        httpVersion == "HTTP/3" ? "h3" : httpVersion
    }
}
