import XCTest
@testable import PrivacyPass

/// The PrivateToken challenge parser beyond the RFC's header vectors: unquoted and quoted
/// parameters, unpadded base64url, case, several header lines, token68 schemes before it, and the
/// malformed values a hostile relay can send (each refused with a reason, none trapping).
final class ChallengeParserTests: XCTestCase {
    private let challenge = TokenChallenge(tokenType: 2, issuerName: Array("issuer.test".utf8),
                                           redemptionContext: [UInt8](repeating: 7, count: 32), originInfo: Array("relay.test".utf8))

    private func unpadded(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes).replacingOccurrences(of: "=", with: "") }

    func testUnquotedParametersUnpaddedValuesAndCase() throws {
        let key: [UInt8] = Array(0..<49)
        let value = "Bearer abc.def==, privatetoken Challenge=\(unpadded(challenge.serialized())) ,TOKEN-KEY=\(unpadded(key)), max-age=300"
        let parsed = try PrivateTokenChallenge.parse(headerValues: [value])
        XCTAssertEqual(parsed, [PrivateTokenChallenge(challenge: challenge, challengeBytes: challenge.serialized(), tokenKey: key, maxAge: 300)])
        let all = try AuthenticationChallenge.parse(value)
        XCTAssertEqual(all.map(\.scheme), ["bearer", "privatetoken"])
        XCTAssertEqual(all[0].token68, "abc.def==")
    }

    func testSeveralHeaderLinesAndQuotedEscapes() throws {
        let first = PrivateTokenChallenge(challenge: challenge, challengeBytes: challenge.serialized(), tokenKey: nil, maxAge: nil)
        var second = first
        second.challenge.redemptionContext = []
        second.challengeBytes = second.challenge.serialized()
        second.maxAge = 10
        let lines = [first.headerValue(), "Basic realm=\"a \\\"quoted\\\" realm\", " + second.headerValue()]
        XCTAssertEqual(try PrivateTokenChallenge.parse(headerValues: lines), [first, second])
        XCTAssertEqual(try AuthenticationChallenge.parse(lines[1]).first?.parameters["realm"], "a \"quoted\" realm")
    }

    func testAnUnparsableMaxAgeIsIgnoredNotFatal() throws {
        let value = "PrivateToken challenge=\"\(Base64URL.encode(challenge.serialized()))\", max-age=\"soon\""
        XCTAssertNil(try PrivateTokenChallenge.parse(headerValues: [value]).first?.maxAge)
    }

    func testMalformedValuesAreRefusedWithAReason() {
        let good = Base64URL.encode(challenge.serialized())
        var shortContext = challenge
        shortContext.redemptionContext = [1, 2, 3, 4, 5]
        let cases: [(String, PrivacyPassError)] = [
            ("PrivateToken challenge=\"\(good)", .malformedChallenge("a quoted string is not terminated")),
            ("PrivateToken token-key=abc", .malformedChallenge("a PrivateToken challenge has no challenge parameter")),
            ("PrivateToken challenge=\"a+b/\"", .malformedChallenge("the challenge is not base64url")),
            ("PrivateToken challenge=\(Base64URL.encode(shortContext.serialized()))",
             .malformedChallenge("the redemption context has 5 bytes, not 0 or 32")),
            ("PrivateToken challenge=\"\(Base64URL.encode(challenge.serialized() + [0]))\"", .malformedChallenge("bytes follow the TokenChallenge")),
            // Padding needs quotes: '=' ends an unquoted value.
            ("PrivateToken challenge=\(Base64URL.encode(challenge.serialized() + [0]))", .malformedChallenge("unexpected character at offset \(23 + unpadded(challenge.serialized() + [0]).utf8.count)")),
            ("PrivateToken challenge=\(Base64URL.encode(Array(challenge.serialized().prefix(9))))", .malformedChallenge("the TokenChallenge is truncated")),
            ("challenge=\(good)", .malformedChallenge("a parameter comes before any scheme or after a token68")),
            ("PrivateToken challenge=\(good) junk", .malformedChallenge("unexpected character at offset \(23 + good.utf8.count + 1)")),
            ("PrivateToken max-age=1, challenge=", .malformedChallenge("a parameter has no value")),
            ("Bearer abc, max-age=1", .malformedChallenge("a parameter comes before any scheme or after a token68")),
        ]
        for (value, expected) in cases {
            XCTAssertThrowsError(try PrivateTokenChallenge.parse(headerValues: [value]), value) {
                XCTAssertEqual($0 as? PrivacyPassError, expected, value)
            }
        }
    }

    func testUnsupportedTokenTypesAreSkipped() throws {
        var grease = challenge
        grease.tokenType = 0x7A7A
        let value = "PrivateToken challenge=\(Base64URL.encode(grease.serialized())), PrivateToken challenge=\(Base64URL.encode(challenge.serialized()))"
        XCTAssertEqual(try PrivateTokenChallenge.parse(headerValues: [value]).map(\.challenge), [challenge])
    }

    func testTheCredentialCarriesThePaddedTokenAndParsesBack() throws {
        // Type 0x0001: 146 bytes, so its base64url ends in padding.
        let token = Token(tokenType: 1, nonce: [UInt8](repeating: 1, count: 32), challengeDigest: challenge.digest,
                          tokenKeyID: [UInt8](repeating: 3, count: 32), authenticator: [UInt8](repeating: 4, count: 48))
        let credential = PrivateTokenChallenge.credential(for: token)
        XCTAssertTrue(credential.hasPrefix("PrivateToken token=\""))
        XCTAssertTrue(credential.hasSuffix("=\""), "base64url with padding, as RFC 9577 requires")
        let parsed = try XCTUnwrap(AuthenticationChallenge.parse(credential).first?.parameters["token"])
        XCTAssertEqual(try Token(parsing: XCTUnwrap(Base64URL.decode(parsed))), token)
    }
}
