/// The usernames and passwords local clients may use (`--user NAME:PASSWORD`); empty means no
/// authentication. Each username is also an isolation key: its connections get a session of
/// their own, so two programs given different names never share a relay connection.
package struct ProxyCredentials: Sendable, Equatable {
    private var passwords: [String: [UInt8]] = [:]

    package init() {}

    /// Whether clients must authenticate.
    package var required: Bool { !passwords.isEmpty }

    package mutating func add(username: String, password: String) {
        passwords[username] = Array(password.utf8)
    }

    /// Whether `password` is `username`'s; compared in time independent of where they differ.
    package func accepts(username: String, password: [UInt8]) -> Bool {
        guard let expected = passwords[username] else { return false }
        var difference = expected.count ^ password.count
        for index in 0..<min(expected.count, password.count) { difference |= Int(expected[index] ^ password[index]) }
        return difference == 0
    }
}
