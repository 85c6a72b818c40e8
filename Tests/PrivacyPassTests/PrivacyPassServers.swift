import Foundation
import Locking
import RelayFetchTestSupport
@testable import PrivacyPass
@testable import RelayTransport

/// The loopback Privacy Pass pair for one test: the issuer on 127.0.3.2 and the relay front on
/// 127.0.3.1 that forwards to relay B; and a responder that answers the front's 407 with a token
/// issued through relay B, counting the challenges it was given.
final class PrivacyPassServers {
    let issuer: HostileServer
    let front: HostileServer
    let challenges = Locked<[ProxyChallenge]>([])

    init() throws {
        issuer = try HostileServer(script: "privacy_pass_issuer.py", host: "127.0.3.2")
        front = try HostileServer(script: "privacy_pass_relay.py", host: "127.0.3.1",
                                  arguments: ["--issuer", "http://127.0.3.2:\(issuer.port)", "--upstream", "127.0.0.12:3128",
                                              "--upstream-token", TestServers.relayBToken])
    }

    deinit {
        front.stop()
        issuer.stop()
    }

    var issuerOrigin: String { "127.0.3.2:\(issuer.port)" }
    var frontURL: URL { URL(string: "http://127.0.3.1:\(front.port)")! }

    /// Issues off the loop, through relay B, and answers; nil when issuance fails.
    var responder: ProxyChallengeResponder {
        let origin = issuerOrigin
        let challenges = challenges
        return { challenge, answer in
            challenges.withLock { $0.append(challenge) }
            DispatchQueue.global().async {
                let credential = try? PrivateTokenAnswer.credential(headerValues: challenge.proxyAuthenticate) { request in
                    let response = try LoopbackHTTP.throughRelayB(to: origin, method: "POST", path: "/token-request",
                                                                  fields: ["Content-Type": TokenRequest.mediaType], body: request.serialized())
                    guard response.status == 200 else { throw LoopbackHTTP.Failure(description: "issuer answered \(response.status)") }
                    return response.body
                }
                answer(.success(credential))
            }
        }
    }
}
