import Foundation
import OAuthFlow
import PrivacyPass
import RelayFetch
import RelayTransport

/// A hop's Privacy Pass issuer (`--relay-privacy-pass`): answers that relay's `PrivateToken`
/// challenge with a token issued for it (RFC 9578), one token per challenge, kept only in the
/// returned credential.
///
/// Route: the directory and the token request go through the relays up to and including the
/// challenging hop, that hop asked without a token (a relay demanding tokens must let its own
/// issuer, and the identity provider that attests for it, through without one, as it must for
/// the client to get a token at all). So the issuer sees the last relay's address, never the
/// client's, and nothing is ever sent to it directly. With `attestation`, each token request
/// carries that identity provider's access token as `Authorization: Bearer`.
final class PrivacyPassIssuer: Sendable {
    let issuer: URL
    /// The chain to the issuer: the relays up to the challenging hop, which answers no 407 of its own.
    private let configuration: Session.Configuration
    private let attestation: AccessTokenKeeper?

    init(issuer: URL, configuration: Session.Configuration, attestation: AccessTokenKeeper?) {
        self.issuer = issuer
        self.configuration = configuration
        self.attestation = attestation
    }

    /// Why no token came: names the issuer; the responder adds the hop.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `PrivateToken token=...` credential for one of `challenge`'s challenges.
    func credential(for challenge: ProxyChallenge) async throws -> String {
        let offered = try PrivateTokenChallenge.parse(headerValues: challenge.proxyAuthenticate)
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let directory = try await Directory.fetch(from: issuer, session: session)
        for item in offered {
            guard let type = TokenType(rawValue: item.challenge.tokenType), let published = directory.keys[type] else { continue }
            // A challenge key other than the issuer's would let the relay tag this client.
            if let key = item.tokenKey, key != published {
                throw Failure(description: "the relay's token-key is not the one \(issuer.absoluteString) publishes")
            }
            let issuance = try TokenIssuance(tokenType: type, tokenKey: published)
            let pending = try issuance.request(for: item.challenge)
            var fields: HTTPFields = [("Content-Type", TokenRequest.mediaType), ("Accept", "application/private-token-response")]
            if let attestation {
                fields.append(name: "Authorization", value: "Bearer \(try await attestation.accessToken())")
            }
            let request = HTTPRequest(url: directory.requestURL, method: "POST", headerFields: fields, body: Data(pending.request.serialized()))
            let (body, response) = try await session.data(for: request)
            guard response.statusCode == 200 else {
                throw Failure(description: "\(directory.requestURL.absoluteString) answered \(response.statusCode) to the token request")
            }
            return PrivateTokenChallenge.credential(for: try issuance.finish(pending, response: Array(body)))
        }
        throw Failure(description: "no challenge of a token type \(issuer.absoluteString) issues")
    }

    /// The issuer directory (RFC 9578 §4): where token requests go and its keys by type.
    private struct Directory {
        let requestURL: URL
        let keys: [TokenType: [UInt8]]

        static func fetch(from issuer: URL, session: Session) async throws -> Directory {
            let url = issuer.appendingPathComponent(".well-known/private-token-issuer-directory")
            let (body, response) = try await session.data(for: HTTPRequest(url: url, headerFields: [("Accept", "application/private-token-issuer-directory")]))
            guard response.statusCode == 200,
                  let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                  let path = object["issuer-request-uri"] as? String, let requestURL = URL(string: path, relativeTo: issuer)?.absoluteURL,
                  let entries = object["token-keys"] as? [[String: Any]] else {
                throw Failure(description: "\(url.absoluteString) gave no usable issuer directory (status \(response.statusCode))")
            }
            var keys: [TokenType: [UInt8]] = [:]
            for entry in entries {
                guard let raw = entry["token-type"] as? Int, let type = TokenType(rawValue: UInt16(truncatingIfNeeded: raw)),
                      let encoded = entry["token-key"] as? String, let key = Base64URL.decode(encoded), keys[type] == nil else { continue }
                keys[type] = Array(key)
            }
            return Directory(requestURL: requestURL, keys: keys)
        }
    }
}
