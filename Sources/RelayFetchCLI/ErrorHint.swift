import RelayFetch

/// What the command line adds to a library error: the option that changes the outcome. The
/// libraries say what went wrong in their own terms (they know no flags); each phrase below is
/// one they use for a condition an option answers.
enum ErrorHint {
    private static let hints: [(phrase: String, hint: String)] = [
        ("proxy authentication required", "give the relay's credentials with --relay-header after its --relay"),
        ("(serverAddresses)", "give the resolver's address with --dns-server-address"),
        ("needs CONNECT-UDP over TCP", "use --relay-protocol h2 or auto for that hop"),
        ("only an HTTP/3 hop without a TCP fallback opens CONNECT-UDP flows", "give the last hop --relay-protocol h3"),
        ("no relay chain ends in an HTTP/3 hop to carry UDP", "give a chain's last hop --relay-protocol h3"),
        ("(the relay wait)", "--relay-wait sets how long a URL waits for a relay chain"),
        ("replace them (CrawlConfiguration.replacesStoredOptions)", "--change-options replaces them"),
        ("share a crawl between workers with a PostgreSQL store", "--store postgres://... shares it"),
    ]

    /// `error` as the command prints it: its text, then the hint for its condition (read from
    /// the error's type where it has one) or for the first phrase it holds.
    static func text(_ error: Error) -> String {
        if let hint = typedHint(error) { return "\(error); \(hint)" }
        return text("\(error)")
    }

    /// Conditions the error's type names, so a change of the library's wording keeps the hint.
    private static func typedHint(_ error: Error) -> String? {
        guard let failure = (error as? FetchError)?.relayError else { return nil }
        return failure.cause.refusalStatus == 407 ? hints[0].hint : nil
    }

    /// A library's error text as the command prints it.
    static func text(_ text: String) -> String {
        guard let hint = hints.first(where: { text.contains($0.phrase) })?.hint else { return text }
        return text + "; " + hint
    }
}
