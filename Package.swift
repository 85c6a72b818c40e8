// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "relayfetch",
    products: [
        .library(name: "RelayFetch", targets: ["RelayFetch"]),
        .executable(name: "relayfetch", targets: ["relayfetch"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped by a header-only shim.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CNgtcp2", pkgConfig: "libngtcp2_crypto_gnutls",
                       providers: [.apt(["libngtcp2-dev", "libngtcp2-crypto-gnutls-dev"])]),
        .systemLibrary(name: "CNghttp3", pkgConfig: "libnghttp3", providers: [.apt(["libnghttp3-dev"])]),
        .systemLibrary(name: "CLinux"),
        // The git commit a release build names (scripts/build-release.sh defines it).
        .systemLibrary(name: "CBuildInfo"),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // A value behind a pthread lock, for state shared across threads (ThreadSanitizer sees it).
        .target(name: "Locking"),
        .target(name: "SystemIO"),
        // Byte reader and writer for binary wire formats (big-endian integers, QUIC varints).
        .target(name: "WireFormat"),
        .target(name: "CryptoPrimitives", dependencies: ["COpenSSL"]),
        // HTTP semantics shared by every layer above: header fields, origins, status lines,
        // response heads, content types, the referrer policy.
        .target(name: "HTTPCore"),
        .target(name: "RelayTransport", dependencies: ["HTTPCore", "SystemIO", "WireFormat", "CryptoPrimitives", "CLinux", "COpenSSL", "CNghttp2", "CNgtcp2", "CNghttp3"]),
        .target(name: "ObliviousHTTP", dependencies: ["WireFormat", "CryptoPrimitives", "COpenSSL"]),
        // Privacy Pass: PrivateToken challenges (RFC 9577), Blind RSA and VOPRF issuance (RFC 9578).
        .target(name: "PrivacyPass", dependencies: ["COpenSSL", "CryptoPrimitives", "WireFormat"]),
        // DNS messages, the per-session answer cache and a stub resolver over encrypted transports.
        .target(name: "NameResolution", dependencies: ["WireFormat", "Locking"]),
        .target(name: "RelayFetch", dependencies: ["HTTPCore", "SystemIO", "WireFormat", "RelayTransport", "ObliviousHTTP", "NameResolution", "Locking", "CCurl", "CPSL", "COpenSSL", "CLinux",
                                                 "CZlib", "CBrotli"]),
        .target(name: "RelayProfiles", dependencies: ["RelayFetch", "SystemIO", "CryptoPrimitives", "COpenSSL"]),
        // The page, in four layers: the DOM (libxml2), style on it, loading it, saving it.
        .target(name: "HTMLDOM", dependencies: ["CLibXML2"]),
        .target(name: "CSSStyle", dependencies: ["HTMLDOM", "CLibXML2"]),
        .target(name: "HeadlessPage", dependencies: ["HTTPCore", "HTMLDOM", "CSSStyle", "RelayFetch", "SystemIO", "Locking", "CLibXML2"]),
        .target(name: "OfflineCopy", dependencies: ["HeadlessPage", "CSSStyle", "HTMLDOM", "RelayFetch", "SystemIO"]),
        .target(name: "WebArchive", dependencies: ["HTTPCore", "HeadlessPage", "CryptoPrimitives"]),
        .target(name: "OAuthFlow", dependencies: ["HTTPCore", "HeadlessPage", "RelayFetch", "CryptoPrimitives", "COpenSSL"]),
        .target(name: "Crawler", dependencies: ["HTTPCore", "SystemIO", "CryptoPrimitives", "RelayFetch", "HeadlessPage", "WebArchive", "Locking", "CSQLite", "CPostgreSQL", "CZlib"]),
        // `relayfetch proxy`: SOCKS5 and HTTP proxy server carried by sessions' relay chains.
        .target(name: "LocalProxy", dependencies: ["RelayFetch", "RelayTransport", "SystemIO", "Locking"]),
        .target(name: "RelayFetchCLI", dependencies: ["HTTPCore", "RelayFetch", "RelayProfiles", "HeadlessPage", "OfflineCopy", "WebArchive", "OAuthFlow", "Crawler", "Locking",
                                                  "LocalProxy", "COpenSSL", "CBuildInfo", "PrivacyPass", "RelayTransport"]),
        .executableTarget(name: "relayfetch", dependencies: ["RelayFetchCLI", "CLinux"]),
        // Benchmarks against peers measured in the same run (Benchmarks/run.sh); not a test.
        .executableTarget(name: "relayfetch-bench", dependencies: ["RelayFetch", "ObliviousHTTP"], path: "Benchmarks/RelayBench"),

        // Finds (and if needed starts) the real test servers; used by the end-to-end tests only.
        .target(name: "RelayFetchTestSupport", dependencies: ["RelayFetch", "Locking", "CLinux", "COpenSSL"], path: "Tests/RelayFetchTestSupport"),
        // COpenSSL and CNghttp2: the layer tests run real servers of those libraries in-process.
        .testTarget(name: "RelayTransportTests", dependencies: ["RelayTransport", "RelayFetchTestSupport", "Locking", "COpenSSL", "CNghttp2"]),
        .testTarget(name: "RelayFetchTests", dependencies: ["RelayFetch", "RelayTransport", "RelayFetchTestSupport", "Locking"]),
        .testTarget(name: "ObliviousHTTPTests", dependencies: ["ObliviousHTTP"], exclude: ["Vectors"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "PrivacyPassTests", dependencies: ["PrivacyPass", "RelayFetch", "RelayTransport", "RelayFetchTestSupport", "Locking"],
                    exclude: ["Vectors"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore"]),
        .testTarget(name: "NameResolutionTests", dependencies: ["NameResolution", "Locking"]),
        .testTarget(name: "HTMLDOMTests", dependencies: ["HTMLDOM", "CSSStyle", "RelayFetchTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "CSSStyleTests", dependencies: ["CSSStyle", "HTMLDOM"]),
        .testTarget(name: "HeadlessPageTests", dependencies: ["HeadlessPage", "HTMLDOM", "CSSStyle", "WebArchive", "OfflineCopy", "RelayFetchTestSupport"]),
        .testTarget(name: "OfflineCopyTests", dependencies: ["OfflineCopy", "HeadlessPage", "RelayFetchTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "OAuthFlowTests", dependencies: ["OAuthFlow", "HeadlessPage", "RelayFetchTestSupport"]),
        .testTarget(name: "RelayProfilesTests", dependencies: ["RelayProfiles", "RelayFetchTestSupport"]),
        .testTarget(name: "CrawlerTests", dependencies: ["Crawler", "RelayFetchTestSupport", "Locking"]),
        .testTarget(name: "LocalProxyTests", dependencies: ["LocalProxy", "RelayTransport", "RelayFetchTestSupport"]),
        .testTarget(name: "RelayFetchCLITests", dependencies: ["RelayFetchCLI", "LocalProxy", "Crawler", "RelayFetchTestSupport", "Locking", "CLibXML2", "COpenSSL",
                                                              "PrivacyPass", "RelayTransport"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
