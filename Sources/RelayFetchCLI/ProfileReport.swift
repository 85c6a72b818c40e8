import Foundation
import RelayFetch
import RelayProfiles

/// How `relayfetch profile` presents a profile, as text and as JSON.
enum ProfileReport {
    static func text(_ profile: ManagedRelayProfile, path: String) -> String {
        var lines = ["profile: \(path)" + (profile.displayName.map { " — \($0)" } ?? "") + (profile.identifier.map { " (\($0))" } ?? "")]
        if let signature = profile.signature {
            lines.append("signature: signed by \(signature.signerSubject), \(signature.signerTrusted ? "trusted" : "NOT trusted")")
        } else {
            lines.append("signature: none")
        }
        for (index, payload) in profile.relayPayloads.enumerated() {
            lines.append("relay payload \(index + 1)" + (payload.payloadIdentifier.map { " (\($0))" } ?? "") + ":")
            for (hop, relay) in payload.relays.enumerated() {
                let endpoints = [(relay.http2RelayTemplate ?? relay.http2RelayURL?.absoluteString).map { "HTTP/2 \($0)" },
                                 relay.http3RelayURL.map { "HTTP/3 \($0.absoluteString)" }].compactMap { $0 }
                lines.append("  hop \(hop + 1): " + endpoints.joined(separator: ", "))
                if !relay.additionalHTTPHeaderFields.isEmpty {
                    lines.append("    headers: " + relay.additionalHTTPHeaderFields.keys.sorted().joined(separator: ", ") + " (values not shown)")
                }
                for pin in relay.pinnedPublicKeySHA256 { lines.append("    pinned key: sha256//\(pin.base64EncodedString())") }
                if let identity = relay.identity { lines.append("    client identity: \(identity.subject) (payload \(identity.payloadUUID))") }
            }
            lines.append("  covers: " + coverage(payload))
        }
        for warning in profile.warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n")
    }

    static func coverage(_ payload: ManagedRelayPayload) -> String {
        var parts: [String] = []
        if payload.matchDomains.isEmpty && payload.matchFQDNs.isEmpty { parts.append("every host") }
        if !payload.matchDomains.isEmpty { parts.append("domains " + payload.matchDomains.joined(separator: ", ")) }
        if !payload.matchFQDNs.isEmpty { parts.append("hosts " + payload.matchFQDNs.joined(separator: ", ")) }
        var text = parts.joined(separator: "; ")
        let excluded = payload.excludedDomains.map { "\($0) (and subdomains)" } + payload.excludedFQDNs
        if !excluded.isEmpty { text += "; except " + excluded.joined(separator: ", ") }
        return text
    }

    static func json(_ profile: ManagedRelayProfile) -> Data {
        let object: [String: Any] = [
            "identifier": profile.identifier ?? NSNull(),
            "displayName": profile.displayName ?? NSNull(),
            "signature": profile.signature.map { ["signer": $0.signerSubject, "trusted": $0.signerTrusted] as [String: Any] } ?? NSNull(),
            "warnings": profile.warnings.map(\.description),
            "relayPayloads": profile.relayPayloads.map { payload -> [String: Any] in
                [
                    "payloadIdentifier": payload.payloadIdentifier ?? NSNull(),
                    "relayUUID": payload.relayUUID ?? NSNull(),
                    "matchDomains": payload.matchDomains, "excludedDomains": payload.excludedDomains,
                    "matchFQDNs": payload.matchFQDNs, "excludedFQDNs": payload.excludedFQDNs,
                    "relays": payload.relays.map { relay -> [String: Any] in
                        [
                            "http2RelayURL": relay.http2RelayURL?.absoluteString ?? NSNull(),
                            "http2RelayTemplate": relay.http2RelayTemplate ?? NSNull(),
                            "http3RelayURL": relay.http3RelayURL?.absoluteString ?? NSNull(),
                            "headerNames": relay.additionalHTTPHeaderFields.keys.sorted(),
                            "pinnedKeysSHA256": relay.pinnedPublicKeySHA256.map { $0.base64EncodedString() },
                            "clientIdentity": relay.identity.map { ["subject": $0.subject, "payloadUUID": $0.payloadUUID] } ?? NSNull(),
                        ]
                    },
                ]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return data + Data("\n".utf8)
    }
}
