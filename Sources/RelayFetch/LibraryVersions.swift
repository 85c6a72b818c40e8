internal import CCurl

/// relayfetch's own version.
public enum RelayFetchVersion {
    public static let current = "0.1.0"
}

/// Versions of the C libraries the fetch layer links, as they report themselves at run time.
public enum LibraryVersions {
    public static var all: [(name: String, version: String)] {
        [("libcurl", String(cString: rf_curl_version_string()))]
    }
}
