import Foundation

/// Reads `.mobileconfig` files (XML or binary property lists, optionally CMS-signed) into
/// `ManagedRelayProfile` values: every `com.apple.relay.managed` payload, with its PKCS#12
/// identities resolved. Invalid values (a value of the wrong type too, as MDM validators refuse
/// it) are errors naming their key path; unknown keys warnings.
public enum ManagedRelayProfileReader {
    static let relayPayloadType = "com.apple.relay.managed"
    static let pkcs12PayloadType = "com.apple.security.pkcs12"

    /// Reads the profile at `url`. `signerCAFile` is the trust store for a signed profile's signer
    /// (nil: the system store); an untrusted signer is a warning, a broken signature an error.
    public static func read(contentsOf url: URL, signerCAFile: String? = nil) throws(ProfileError) -> ManagedRelayProfile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ProfileError(keyPath: "", reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try read(data, signerCAFile: signerCAFile)
    }

    public static func read(_ data: Data, signerCAFile: String? = nil) throws(ProfileError) -> ManagedRelayProfile {
        var warnings: [ProfileWarning] = []
        var plistData = data
        var signature: ProfileSignature?
        if !looksLikePropertyList(data) {
            let opened = try OpenSSLProfileCrypto.openSigned(data, caFile: signerCAFile)
            plistData = opened.content
            signature = opened.signature
            if !opened.signature.signerTrusted {
                warnings.append(ProfileWarning(keyPath: "", message: "signed by \(opened.signature.signerSubject), whose certificate is not trusted"))
            }
        } else {
            warnings.append(ProfileWarning(keyPath: "", message: "the profile is not signed"))
        }
        if plistData.starts(with: Array("bplist".utf8)), let problem = BinaryPropertyListCheck.problem(in: plistData) {
            throw ProfileError(keyPath: "", reason: "not a valid property list (\(problem))")
        }
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: plistData, options: [], format: nil)
        } catch {
            throw ProfileError(keyPath: "", reason: "not a valid property list (\(error.localizedDescription))")
        }
        let profile = PlistNode(value: root, path: "")
        warnings += try profile.validate(PayloadSchema.profile)
        guard let content = profile.child("PayloadContent") else {
            throw ProfileError(keyPath: "PayloadContent", reason: "missing: a profile needs a PayloadContent array")
        }
        let payloads = try content.array()
        var identities: [String: ClientIdentity] = [:]
        for payload in payloads where try type(of: payload) == pkcs12PayloadType {
            let identity = try PayloadParsers.identity(payload, warnings: &warnings)
            identities[identity.payloadUUID] = identity
        }
        var relayPayloads: [ManagedRelayPayload] = []
        for payload in payloads {
            switch try type(of: payload) {
            case relayPayloadType:
                relayPayloads.append(try PayloadParsers.relayPayload(payload, identities: identities, warnings: &warnings))
            case pkcs12PayloadType:
                continue
            case let other:
                warnings.append(ProfileWarning(keyPath: payload.path, message: "payload type \(other) is not about relays, ignored"))
            }
        }
        guard !relayPayloads.isEmpty else {
            throw ProfileError(keyPath: "PayloadContent", reason: "no \(relayPayloadType) payload")
        }
        return ManagedRelayProfile(identifier: try profile.child("PayloadIdentifier")?.string(),
                                   displayName: try profile.child("PayloadDisplayName")?.string(),
                                   signature: signature, relayPayloads: relayPayloads, warnings: warnings)
    }

    private static func type(of payload: PlistNode) throws(ProfileError) -> String {
        _ = try payload.dictionary()
        guard let type = payload.child("PayloadType") else { throw ProfileError(keyPath: "\(payload.path).PayloadType", reason: "missing") }
        return try type.string()
    }

    private static func looksLikePropertyList(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return head.hasPrefix("bplist") || head.hasPrefix("<?xml") || head.hasPrefix("<plist") || head.hasPrefix("<!DOCTYPE")
    }
}
