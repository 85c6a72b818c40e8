internal import CPSL

/// Public suffixes and registrable domains, from libpsl's built-in list. Used by the cookie jar
/// and by the crawler's same-domain scope.
public enum PublicSuffixList {
    /// True for "com", "co.uk", "test" (the implicit "*" rule covers unknown top-level names).
    public static func isPublicSuffix(_ domain: String) -> Bool {
        psl_is_public_suffix2(psl_builtin(), domain, PSL_TYPE_ANY) != 0
    }

    /// "example.co.uk" for "www.example.co.uk"; nil for public suffixes and IP addresses.
    public static func registrableDomain(_ host: String) -> String? {
        psl_registrable_domain(psl_builtin(), host).map { String(cString: $0) }
    }
}
