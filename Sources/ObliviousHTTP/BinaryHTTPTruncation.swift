/// Which trailing sections an encoder may leave out (RFC 9292 Section 3.8): empty trailers, then
/// empty content, then an empty header section, each only if everything after it is absent too.
struct BinaryHTTPTruncation {
    let writesHeaders: Bool
    let writesContent: Bool
    let writesTrailers: Bool

    init(enabled: Bool, headersEmpty: Bool, contentEmpty: Bool, trailersEmpty: Bool) {
        writesTrailers = !enabled || !trailersEmpty
        writesContent = writesTrailers || !contentEmpty
        writesHeaders = writesContent || !headersEmpty
    }
}
