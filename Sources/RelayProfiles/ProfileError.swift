/// A profile that cannot be used: the key path of the offending value and why.
public struct ProfileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Where in the profile, e.g. `PayloadContent[0].Relays[1].HTTP2RelayURL`; empty for the file.
    public let keyPath: String
    public let reason: String

    public init(keyPath: String, reason: String) {
        self.keyPath = keyPath
        self.reason = reason
    }

    public var description: String { keyPath.isEmpty ? reason : "\(keyPath): \(reason)" }
}

/// Something in a profile that is accepted but worth telling: unknown keys, no signature.
public struct ProfileWarning: Sendable, CustomStringConvertible, Equatable {
    public let keyPath: String
    public let message: String
    public var description: String { keyPath.isEmpty ? message : "\(keyPath): \(message)" }
}
