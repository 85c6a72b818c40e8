/// The few DER pieces an RSA SPKI needs: definite lengths, INTEGER, SEQUENCE, BIT STRING.
enum DER {
    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 { lengthBytes.insert(UInt8(remaining & 0xFF), at: 0); remaining >>= 8 }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + content
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { element(tag: 0x30, content) }

    /// A non-negative INTEGER from big-endian magnitude bytes (a 0x00 added when the top bit is set).
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop(while: { $0 == 0 }))
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(tag: 0x02, bytes)
    }

    /// A cursor over DER elements; every length is checked against what is left.
    struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { offset == bytes.count }

        /// The content of the next element, which must have `tag`.
        mutating func read(tag: UInt8) throws -> [UInt8] {
            let start = offset
            guard offset < bytes.count, bytes[offset] == tag else { throw PrivacyPassError.malformedKey("expected DER tag \(tag)") }
            let (contentStart, length) = try header(at: start)
            offset = contentStart + length
            return Array(bytes[contentStart..<offset])
        }

        /// The whole next element, tag and length included.
        mutating func readElement() throws -> [UInt8] {
            let start = offset
            guard offset < bytes.count else { throw PrivacyPassError.malformedKey("DER ends early") }
            let (contentStart, length) = try header(at: start)
            offset = contentStart + length
            return Array(bytes[start..<offset])
        }

        private func header(at start: Int) throws -> (contentStart: Int, length: Int) {
            var index = start + 1
            guard index < bytes.count else { throw PrivacyPassError.malformedKey("DER ends in a header") }
            let first = bytes[index]
            index += 1
            var length = Int(first)
            if first & 0x80 != 0 {
                let count = Int(first & 0x7F)
                guard count >= 1, count <= 3, index + count <= bytes.count else { throw PrivacyPassError.malformedKey("bad DER length") }
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard length <= bytes.count - index else { throw PrivacyPassError.malformedKey("a DER length points past the end") }
            return (index, length)
        }
    }
}
