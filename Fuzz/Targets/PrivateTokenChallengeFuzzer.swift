import Foundation
@testable import PrivacyPass

/// Parses the input as a `WWW-Authenticate`/`Proxy-Authenticate` value. Whatever a relay sends,
/// the parser returns or throws, never traps; every PrivateToken challenge it accepts has exactly
/// the bytes its TokenChallenge serializes to, and the header value we would send for it parses
/// back to the same challenge.
@_cdecl("LLVMFuzzerTestOneInput")
public func privateTokenChallengeFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let value = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? AuthenticationChallenge.parse(value)
    guard let challenges = try? PrivateTokenChallenge.parse(headerValues: [value]) else { return 0 }
    for challenge in challenges {
        fuzzCheck(challenge.challenge.serialized() == challenge.challengeBytes, "a challenge does not serialize to its bytes")
        fuzzCheck(TokenType(rawValue: challenge.challenge.tokenType) != nil, "a challenge of an unsupported type was kept")
        let again = try? PrivateTokenChallenge.parse(headerValues: [challenge.headerValue()])
        fuzzCheck(again == [challenge], "the header value we would send does not parse back")
    }
    return 0
}
