import Foundation

/// One hop's issuer directory for the session (`--relay-privacy-pass`): read once, used until its
/// max-age (`IssuerDirectory.expires`) passes, and read again early only when asked to (a
/// challenge names a key it lacks: the issuer may have rotated). Tunnels that need it while it
/// is being read wait for that one read rather than each sending their own.
actor IssuerDirectoryCache {
    private var current: IssuerDirectory?
    private var reading: Task<IssuerDirectory, Error>?

    /// The directory, and whether it was read for this call (false: from the cache).
    func directory(now: Date, refresh: Bool, read: @escaping @Sendable () async throws -> IssuerDirectory) async throws -> (IssuerDirectory, fresh: Bool) {
        if !refresh, let current, current.expires > now { return (current, false) }
        if let reading { return (try await reading.value, true) }
        let task = Task { try await read() }
        reading = task
        defer { reading = nil }
        let directory = try await task.value
        current = directory
        return (directory, true)
    }
}
