import Foundation

/// The property-list type a key's value must have.
enum PlistType: String {
    case string, integer, boolean, real, date, data, array, dictionary

    /// Whether `value` (as `PropertyListSerialization` returns it) is of this type. Booleans come
    /// back as `Bool` and numbers as `NSNumber` (reals with a floating-point objCType), so an
    /// integer is never mistaken for a boolean or the other way round.
    func matches(_ value: Any) -> Bool {
        switch self {
        case .string: return value is String
        case .integer: return Self.number(value).map { !$0.isFloat } ?? false
        case .real: return Self.number(value) != nil
        case .boolean: return type(of: value) == Bool.self || (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
        case .date: return value is Date
        case .data: return value is Data
        case .array: return value is [Any]
        case .dictionary: return value is [String: Any]
        }
    }

    /// The number in `value`, unless it is a boolean.
    private static func number(_ value: Any) -> (value: NSNumber, isFloat: Bool)? {
        guard type(of: value) != Bool.self, let number = value as? NSNumber else { return nil }
        let objCType = String(cString: number.objCType)
        guard objCType != "c" else { return nil }
        return (number, objCType == "d" || objCType == "f")
    }

    /// "an integer", "a string", ... for error messages.
    var described: String { self == .integer || self == .array ? "an \(rawValue)" : "a \(rawValue)" }
}

/// The keys each dictionary of a relay profile may hold, with the types Apple's MDM validators
/// require: a value of another type is an error naming its key path, an unknown key a warning.
enum PayloadSchema {
    static let commonPayload: [String: PlistType] = [
        "PayloadType": .string, "PayloadUUID": .string, "PayloadIdentifier": .string, "PayloadVersion": .integer,
        "PayloadDisplayName": .string, "PayloadDescription": .string, "PayloadOrganization": .string,
    ]
    static let profile = commonPayload.merging([
        "PayloadContent": .array, "PayloadRemovalDisallowed": .boolean, "PayloadScope": .string, "ConsentText": .dictionary,
        "HasRemovalPasscode": .boolean, "PayloadExpirationDate": .date, "RemovalDate": .date,
        "DurationUntilRemoval": .real, "TargetDeviceType": .integer,
    ]) { $1 }
    static let relayPayload = commonPayload.merging([
        "Relays": .array, "MatchDomains": .array, "ExcludedDomains": .array, "MatchFQDNs": .array,
        "Excluded FQDNs": .array, "RelayUUID": .string,
    ]) { $1 }
    static let relay: [String: PlistType] = [
        "HTTP3RelayURL": .string, "HTTP2RelayURL": .string, "AdditionalHTTPHeaderFields": .dictionary,
        "PayloadCertificateUUID": .string, "RawPublicKeys": .array, "DNSOverHTTPSURL": .string,
        // Not Apple's: relayfetch's OAuth scenario file for this relay's token (--relay-token-oauth).
        "RelayTokenOAuthScenario": .string,
        // Not Apple's: this relay's Privacy Pass issuer (--relay-privacy-pass) and the OAuth scenario
        // whose access token attests for the client to it (--relay-privacy-pass-oauth).
        "RelayPrivacyPassIssuer": .string, "RelayPrivacyPassOAuthScenario": .string,
    ]
    static let pkcs12 = commonPayload.merging([
        "PayloadContent": .data, "Password": .string, "PayloadCertificateFileName": .string,
    ]) { $1 }
}
