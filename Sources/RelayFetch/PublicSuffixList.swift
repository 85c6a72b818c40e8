internal import CPSL

/// Public suffixes and registrable domains, from libpsl's built-in list. Used by the cookie jar
/// and by the crawler's same-domain scope.
public enum PublicSuffixList {
    /// True for "com", "co.uk", "test" (the implicit "*" rule covers unknown top-level names).
    public static func isPublicSuffix(_ domain: String) -> Bool {
        domain.withCString { psl_is_public_suffix2(psl_builtin(), $0, PSL_TYPE_ANY) != 0 }
    }

    /// "example.co.uk" for "www.example.co.uk"; nil for public suffixes and IP addresses.
    public static func registrableDomain(_ host: String) -> String? {
        // libpsl returns a pointer into its argument, so the C string must outlive the read:
        // copy the result inside `withCString`, never after an implicit String-to-pointer bridge.
        host.withCString { name in
            psl_registrable_domain(psl_builtin(), name).map { String(cString: $0) }
        }
    }
}
