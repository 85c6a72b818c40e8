/// A profile that cannot be used: the key path of the offending value and why; for an installed
/// profile (`ManagedDefaultProfiles`), also whose it is and its file. The module's one error:
/// its condition is the key path (what to fix), so it has no code to switch on.
public struct ProfileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// An installed profile: whose (the administrator's or the user's) and where.
    public struct Installed: Sendable, Equatable {
        public let scope: ManagedDefaultProfiles.Scope
        public let path: String
    }

    /// Where in the profile, e.g. `PayloadContent[0].Relays[1].HTTP2RelayURL`; empty for the file.
    public let keyPath: String
    public let reason: String
    /// The installed profile this is about; nil for a profile read from a file the caller named.
    public private(set) var installed: Installed?

    public init(keyPath: String, reason: String) {
        self.keyPath = keyPath
        self.reason = reason
    }

    /// This error, about the installed profile at `path`.
    func installed(_ scope: ManagedDefaultProfiles.Scope, at path: String) -> ProfileError {
        var error = self
        error.installed = Installed(scope: scope, path: path)
        return error
    }

    public var description: String {
        let problem = keyPath.isEmpty ? reason : "\(keyPath): \(reason)"
        guard let installed else { return problem }
        return "the \(installed.scope.rawValue)'s relay profile \(installed.path) cannot be used: \(problem)"
    }
}

/// Something in a profile that is accepted but worth telling: unknown keys, no signature.
public struct ProfileWarning: Sendable, CustomStringConvertible, Equatable {
    public let keyPath: String
    public let message: String
    public var description: String { keyPath.isEmpty ? message : "\(keyPath): \(message)" }
}
