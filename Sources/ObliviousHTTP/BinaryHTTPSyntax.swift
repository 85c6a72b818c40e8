/// The character rules RFC 9292 takes from HTTP (RFC 9110 Section 5) and HTTP/2 (RFC 9113
/// Section 8.2 and 8.3) for control data and fields. Used both when encoding and decoding.
enum BinaryHTTPSyntax {
    /// Pseudo-fields that binary messages carry as control data instead (RFC 9292 Section 3.6).
    static let reservedPseudoFields: Set<String> = [":method", ":scheme", ":authority", ":path", ":status"]

    /// tchar (RFC 9110 Section 5.6.2): visible ASCII other than delimiters.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    /// Whether `name` is a lowercase field name, optionally a pseudo-field (leading ':').
    static func isFieldName(_ bytes: some Collection<UInt8>) -> Bool {
        let body = bytes.first == UInt8(ascii: ":") ? bytes.dropFirst() : bytes[...]
        return isToken(body) && !body.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// HTTP/2's rule for values: no NUL, CR or LF, and no leading or trailing SP or HTAB.
    static func isFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        if let first = bytes.first, isWhitespace(first) { return false }
        var last: UInt8?
        for byte in bytes {
            if byte == 0x00 || byte == 0x0a || byte == 0x0d { return false }
            last = byte
        }
        return !(last.map(isWhitespace) ?? false)
    }

    /// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), or empty (as for CONNECT).
    static func isScheme(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first else { return true }
        let isAlpha = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        return isAlpha(first) && bytes.allSatisfy { isAlpha($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || "+-.".utf8.contains($0) }
    }

    /// Authority: visible ASCII without userinfo ('@') or the delimiters that end it; may be empty.
    static func isAuthority(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { $0 > 0x20 && $0 < 0x7f && !"@/?#".utf8.contains($0) }
    }

    /// Path and query: visible ASCII without a fragment; may be empty (as for CONNECT).
    static func isPath(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "#") }
    }

    /// Checks one field section as a whole: names, values, and pseudo-field placement (RFC 9292
    /// Section 3.6: reserved names never, others only first and never in trailers).
    static func validate(_ fields: [BinaryHTTPField], isTrailer: Bool) throws(ObliviousHTTPError) {
        var seenRegularField = false
        for field in fields {
            try validateName(Array(field.name.utf8), isTrailer: isTrailer, seenRegularField: &seenRegularField)
            guard isFieldValue(field.value) else {
                throw ObliviousHTTPError(.invalidFieldValue, "the value of \"\(field.name)\" has NUL, CR, LF or surrounding whitespace")
            }
        }
    }

    static func validateName(_ name: [UInt8], isTrailer: Bool, seenRegularField: inout Bool) throws(ObliviousHTTPError) {
        let text = String(decoding: name, as: UTF8.self)
        guard !name.isEmpty else { throw ObliviousHTTPError(.invalidFieldName, "a field name is empty") }
        guard isFieldName(name) else {
            throw ObliviousHTTPError(.invalidFieldName, "\(text.debugDescription) is not a lowercase field name")
        }
        guard name.first == UInt8(ascii: ":") else {
            seenRegularField = true
            return
        }
        if reservedPseudoFields.contains(text) {
            throw ObliviousHTTPError(.invalidFieldName, "\(text) is control data, not a field, in a binary message")
        }
        if isTrailer { throw ObliviousHTTPError(.invalidFieldName, "pseudo-field \(text) in a trailer section") }
        if seenRegularField { throw ObliviousHTTPError(.invalidFieldName, "pseudo-field \(text) after a regular field") }
    }
}
