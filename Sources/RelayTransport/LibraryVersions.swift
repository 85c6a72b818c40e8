internal import COpenSSL
internal import CNghttp2
internal import CNgtcp2
internal import CNghttp3

/// Versions of the C libraries the transport links, as they report themselves at run time
/// (`LibraryVersions` in RelayFetch lists them).
package enum TransportLibraries {
    package static var versions: [(name: String, version: String)] {
        [
            ("OpenSSL", String(cString: OpenSSL_version(Int32(OPENSSL_VERSION))).replacingOccurrences(of: "OpenSSL ", with: "")),
            ("nghttp2", String(cString: nghttp2_version(0).pointee.version_str)),
            ("ngtcp2", String(cString: ngtcp2_version(0).pointee.version_str)),
            ("nghttp3", String(cString: nghttp3_version(0).pointee.version_str)),
        ]
    }
}
