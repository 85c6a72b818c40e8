internal import CCurl
import RelayTransport

/// relayfetch's own version.
public enum RelayFetchVersion {
    public static let current = "0.1.0"
}

/// Versions of the C libraries relayfetch links, as they report themselves at run time:
/// libcurl and the transport's (OpenSSL, nghttp2, ngtcp2, nghttp3) here; modules above add
/// theirs in extensions (`LibraryVersions.page`: libxml2).
public enum LibraryVersions {
    public static var all: [(name: String, version: String)] {
        [("libcurl", String(cString: rf_curl_version_string()))] + TransportLibraries.versions
    }
}
