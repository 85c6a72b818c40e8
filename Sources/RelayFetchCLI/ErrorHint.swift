/// What the command line adds to a library error: the option that changes the outcome. The
/// libraries say what went wrong in their own terms (they know no flags); each phrase below is
/// one they use for a condition an option answers.
enum ErrorHint {
    private static let hints: [(phrase: String, hint: String)] = [
        ("proxy authentication required", "give the relay's credentials with --relay-header after its --relay"),
        ("(serverAddresses)", "give the resolver's address with --dns-server-address"),
        ("needs CONNECT-UDP over TCP", "use --relay-protocol h2 or auto for that hop"),
        ("(the relay wait)", "--relay-wait sets how long a URL waits for a relay chain"),
        ("replace them (CrawlConfiguration.replacesStoredOptions)", "--change-options replaces them"),
        ("share a crawl between workers with a PostgreSQL store", "--store postgres://... shares it"),
    ]

    /// `error` as the command prints it: its text, then the hint for the first phrase it holds.
    static func text(_ error: Error) -> String { text("\(error)") }

    /// A library's error text as the command prints it.
    static func text(_ text: String) -> String {
        guard let hint = hints.first(where: { text.contains($0.phrase) })?.hint else { return text }
        return text + "; " + hint
    }
}
