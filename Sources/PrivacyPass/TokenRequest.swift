import WireFormat

/// The TokenRequest of RFC 9578 (§5.1 and §6.1): type, the last byte of the key id (the issuer
/// learns no more of which key), and the blinded message. Sent as application/private-token-request.
package struct TokenRequest: Hashable, Sendable {
    package var tokenType: TokenType
    package var truncatedTokenKeyID: UInt8
    package var blindedMessage: [UInt8]

    package init(tokenType: TokenType, truncatedTokenKeyID: UInt8, blindedMessage: [UInt8]) {
        self.tokenType = tokenType
        self.truncatedTokenKeyID = truncatedTokenKeyID
        self.blindedMessage = blindedMessage
    }

    package init(parsing bytes: [UInt8]) throws {
        var reader = WireReader(bytes)
        do {
            let raw = try reader.u16()
            guard let type = TokenType(rawValue: raw) else { throw PrivacyPassError.unsupportedTokenType(raw) }
            tokenType = type
            truncatedTokenKeyID = try reader.u8()
            blindedMessage = Array(try reader.take(type.blindedMessageLength))
        } catch let error as PrivacyPassError {
            throw error
        } catch {
            throw PrivacyPassError.malformedMessage("the TokenRequest is truncated")
        }
        guard reader.isAtEnd else { throw PrivacyPassError.malformedMessage("bytes follow the TokenRequest") }
    }

    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(tokenType.rawValue)
        out.append(truncatedTokenKeyID)
        return out + blindedMessage
    }

    package static let mediaType = "application/private-token-request"
    package static let responseMediaType = "application/private-token-response"
}
