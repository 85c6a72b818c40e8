extension StringProtocol {
    /// Equal to `other` but for the case of ASCII letters: for field names and tokens, which are
    /// ASCII. Cheaper than Foundation's comparison or lowercasing both, which run per field of
    /// every request and response.
    package func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { $0 == $1 || ($0 | 0x20 == $1 | 0x20 && ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) }
    }
}
