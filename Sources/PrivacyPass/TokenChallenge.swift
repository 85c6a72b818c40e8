import WireFormat

/// The TokenChallenge of RFC 9577 §2.1.1 in its default structure: who issues, the redemption
/// context (empty or 32 bytes) and the origins the token is good for.
package struct TokenChallenge: Hashable, Sendable {
    package var tokenType: UInt16
    package var issuerName: [UInt8]
    package var redemptionContext: [UInt8]
    package var originInfo: [UInt8]

    package init(tokenType: UInt16, issuerName: [UInt8], redemptionContext: [UInt8] = [], originInfo: [UInt8] = []) {
        self.tokenType = tokenType
        self.issuerName = issuerName
        self.redemptionContext = redemptionContext
        self.originInfo = originInfo
    }

    /// Reads one challenge; throws on a short field, a context that is neither 0 nor 32 bytes,
    /// an empty issuer name or bytes left over.
    package init(parsing bytes: [UInt8]) throws {
        var reader = WireReader(bytes)
        do {
            tokenType = try reader.u16()
            let issuerLength = Int(try reader.u16())
            issuerName = Array(try reader.take(issuerLength))
            let contextLength = Int(try reader.u8())
            redemptionContext = Array(try reader.take(contextLength))
            let originLength = Int(try reader.u16())
            originInfo = Array(try reader.take(originLength))
        } catch {
            throw PrivacyPassError.malformedChallenge("the TokenChallenge is truncated")
        }
        guard reader.isAtEnd else { throw PrivacyPassError.malformedChallenge("bytes follow the TokenChallenge") }
        guard !issuerName.isEmpty else { throw PrivacyPassError.malformedChallenge("the issuer name is empty") }
        guard redemptionContext.isEmpty || redemptionContext.count == 32 else {
            throw PrivacyPassError.malformedChallenge("the redemption context has \(redemptionContext.count) bytes, not 0 or 32")
        }
    }

    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(tokenType)
        // Fields longer than their length prefix allows are cut rather than trapping; a parsed
        // challenge never has one.
        let issuer = issuerName.prefix(0xFFFF), context = redemptionContext.prefix(0xFF), origins = originInfo.prefix(0xFFFF)
        out.appendBigEndian(UInt16(issuer.count))
        out += issuer
        out.append(UInt8(context.count))
        out += context
        out.appendBigEndian(UInt16(origins.count))
        out += origins
        return out
    }

    /// SHA-256 of the challenge: the Token's challenge_digest.
    package var digest: [UInt8] { SHA.sha256(serialized()) }

    /// The issuer name as text (a host name by RFC 9577), nil if not UTF-8.
    package var issuer: String? { String(validating: issuerName, as: UTF8.self) }

    /// The origin names origin_info lists (comma-separated); empty means any origin.
    package var origins: [String] {
        String(decoding: originInfo, as: UTF8.self).split(separator: ",").map(String.init)
    }
}
