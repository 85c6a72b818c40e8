import Foundation
import Locking
import OAuthFlow
import PrivacyPass
import RelayFetch
import RelayTransport

/// A hop's Privacy Pass issuer (`--relay-privacy-pass`): answers that relay's `PrivateToken`
/// challenge with a token issued for it (RFC 9578), one token per challenge, kept only in the
/// returned credential. Its directory is read once per session (`IssuerDirectoryCache`).
///
/// Route: the directory and the token request go through the relays up to and including the
/// challenging hop, that hop asked without a token (a relay demanding tokens must let its own
/// issuer, and the identity provider that attests for it, through without one, as it must for
/// the client to get a token at all). So the issuer sees the last relay's address, never the
/// client's, and nothing is ever sent to it directly. With `attestation`, each token request
/// carries that identity provider's access token as `Authorization: Bearer`.
///
/// An issuance ends within `budget` seconds and its answers are bounded by the route's
/// `maximumResponseSize`: an issuer that stalls or floods fails the tunnel with a
/// `TokenIssuanceFailure` naming it, and the relay's 407 is never retried without a token.
final class PrivacyPassIssuer: Sendable {
    let issuer: URL
    /// The chain to the issuer: the relays up to the challenging hop, which answers no 407 of its own.
    private let configuration: Session.Configuration
    private let attestation: AccessTokenKeeper?
    private let budget: Double
    private let directories = IssuerDirectoryCache()
    /// The route's limit on an issuer's answer, in bytes: a directory with a few keys fits many
    /// times over, and an issuer that sends more is not one to trust.
    static let largestAnswer = 64 << 10

    init(issuer: URL, configuration: Session.Configuration, attestation: AccessTokenKeeper?, budget: Double) {
        self.issuer = issuer
        self.configuration = configuration
        self.attestation = attestation
        self.budget = budget
    }

    /// The issuer's host:port, as failures name it.
    var authority: String {
        let host = issuer.host ?? ""
        return "\(host.contains(":") ? "[\(host)]" : host):\(issuer.port ?? (issuer.scheme == "http" ? 80 : 443))"
    }

    private func failure(_ reason: TokenIssuanceFailure.Reason) -> TokenIssuanceFailure {
        TokenIssuanceFailure(issuer: authority, reason: reason)
    }

    /// Calls `completion` once with the credential for `challenge`, or why there is none, at
    /// the latest `budget` seconds from now.
    func answer(_ challenge: ProxyChallenge, completion: @escaping @Sendable (Result<String, TokenIssuanceFailure>) -> Void) {
        let pending = Locked<(@Sendable (Result<String, TokenIssuanceFailure>) -> Void)?>(completion)
        let finish: @Sendable (Result<String, TokenIssuanceFailure>) -> Void = { result in
            pending.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }?(result)
        }
        let budget = budget
        let deadline = Task {
            try await Task.sleep(nanoseconds: UInt64(budget * 1e9))
            finish(.failure(failure(.unreachable("no token within \(String(format: "%g", budget)) s"))))
        }
        Task {
            do throws(TokenIssuanceFailure) {
                finish(.success(try await credential(for: challenge)))
            } catch {
                finish(.failure(error))
            }
            deadline.cancel()
        }
    }

    /// The `PrivateToken token=...` credential for one of `challenge`'s challenges.
    func credential(for challenge: ProxyChallenge) async throws(TokenIssuanceFailure) -> String {
        let offered: [PrivateTokenChallenge]
        do {
            offered = try PrivateTokenChallenge.parse(headerValues: challenge.proxyAuthenticate)
        } catch {
            throw failure(.noUsableChallenge("\(error)"))
        }
        let session: Session
        do {
            session = try Session(configuration: configuration)
        } catch {
            throw failure(.unreachable("\(error)"))
        }
        defer { session.invalidate() }
        var (directory, fresh) = try await directory(session: session, refresh: false)
        var choice = Self.choose(from: offered, in: directory)
        if choice == nil && !fresh {
            // A key the cached directory lacks may be the issuer's new one: read it once more.
            (directory, _) = try await self.directory(session: session, refresh: true)
            choice = Self.choose(from: offered, in: directory)
        }
        guard let (item, type, key) = choice else {
            let known = offered.contains { TokenType(rawValue: $0.challenge.tokenType).map { directory.keys[$0] != nil } ?? false }
            throw failure(.noUsableChallenge(known ? "the relay's token-key is not one the issuer publishes"
                                                    : "the relay asks for no token type the issuer issues"))
        }
        return try await issue(item, type: type, key: key, requestURL: directory.requestURL, session: session)
    }

    private static func choose(from offered: [PrivateTokenChallenge], in directory: IssuerDirectory)
        -> (PrivateTokenChallenge, TokenType, [UInt8])? {
        for item in offered {
            guard let type = TokenType(rawValue: item.challenge.tokenType),
                  let key = directory.key(for: type, challengeKey: item.tokenKey) else { continue }
            return (item, type, key)
        }
        return nil
    }

    private func issue(_ item: PrivateTokenChallenge, type: TokenType, key: [UInt8], requestURL: URL,
                       session: Session) async throws(TokenIssuanceFailure) -> String {
        let issuance: TokenIssuance
        let pending: TokenIssuance.Pending
        do {
            issuance = try TokenIssuance(tokenType: type, tokenKey: key)
            pending = try issuance.request(for: item.challenge)
        } catch {
            throw failure(.badResponse("its token key: \(error)"))
        }
        var fields: HTTPFields = [("Content-Type", TokenRequest.mediaType), ("Accept", "application/private-token-response")]
        if let attestation {
            do {
                fields.append(name: "Authorization", value: "Bearer \(try await attestation.accessToken())")
            } catch {
                throw failure(.attestationUnavailable("\(error)"))
            }
        }
        let request = HTTPRequest(url: requestURL, method: "POST", headerFields: fields, body: Data(pending.request.serialized()))
        let (body, response) = try await send(request, session: session)
        guard response.statusCode == 200 else { throw failure(.refused(status: response.statusCode)) }
        do {
            return PrivateTokenChallenge.credential(for: try issuance.finish(pending, response: Array(body)))
        } catch {
            throw failure(.badResponse("its TokenResponse: \(error)"))
        }
    }

    /// The session's directory: cached, or read (again) through the route.
    private func directory(session: Session, refresh: Bool) async throws(TokenIssuanceFailure) -> (IssuerDirectory, fresh: Bool) {
        let url = issuer.appendingPathComponent(".well-known/private-token-issuer-directory")
        do {
            return try await directories.directory(now: Date(), refresh: refresh) { [self] () async throws(TokenIssuanceFailure) in
                let (body, response) = try await send(HTTPRequest(url: url, headerFields: [("Accept", "application/private-token-issuer-directory")]),
                                                      session: session)
                guard response.statusCode == 200 else { throw failure(.refused(status: response.statusCode)) }
                guard let directory = IssuerDirectory(body: body, issuer: issuer, cacheControl: response.headerFields["Cache-Control"], now: Date()) else {
                    throw failure(.badResponse("\(url.path) is not an issuer directory"))
                }
                return directory
            }
        } catch let error as TokenIssuanceFailure {
            throw error
        } catch {
            throw failure(.unreachable("\(error)"))
        }
    }

    private func send(_ request: HTTPRequest, session: Session) async throws(TokenIssuanceFailure) -> (Data, HTTPResponse) {
        do {
            return try await session.data(for: request)
        } catch let error as FetchError where error.code == .responseTooLarge {
            throw failure(.badResponse("its answer to \(request.url.path) exceeds \(configuration.maximumResponseSize) bytes"))
        } catch {
            throw failure(.unreachable("\(error)"))
        }
    }
}
