/// The links of an HTML page in one pass over its bytes, without building a document: `a` and
/// `area` hrefs, `iframe` and `frame` srcs, `link rel=canonical`, and the first `base href`;
/// and the contents of the metas named as asked (the robots metas).
/// It reads tags and attributes as HTML's tokenizer does (quoted and unquoted values, comments,
/// and the raw text of script, style, textarea, title and xmp skipped), and decodes the
/// character references a URL may hold (`&amp;` and the like, numeric ones). A page it cannot
/// read as ASCII-compatible text, or whose links hold bytes beyond ASCII (whose meaning depends
/// on the page's encoding), gives nil: the caller then parses it fully.
struct HTMLLinkScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private(set) var base: String?
    private(set) var references: [String] = []
    /// Only metas with these names (lower case) are kept, so a page of many metas costs nothing.
    private let metaNames: Set<String>
    private(set) var metas: [(name: String, content: String)] = []
    private var nonASCII = false

    /// The base href (if any), the references in document order and the metas named in
    /// `metaNames` (lower case), or nil as said above.
    static func scan(_ body: UnsafeRawBufferPointer, metaNames: Set<String> = []) -> HTMLLinks? {
        let bytes = body.bindMemory(to: UInt8.self)
        // A UTF-16 or UTF-32 byte order mark: not ASCII-compatible.
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) { return nil }
        var scanner = HTMLLinkScanner(bytes: bytes, metaNames: metaNames)
        scanner.run()
        return scanner.nonASCII ? nil : HTMLLinks(base: scanner.base, references: scanner.references, metas: scanner.metas)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, metaNames: Set<String>) {
        self.bytes = bytes
        self.metaNames = metaNames
    }

    private mutating func run() {
        while let open = find(UInt8(ascii: "<"), from: index) {
            index = open + 1
            guard index < bytes.count else { return }
            let next = bytes[index]
            if next == UInt8(ascii: "!") {
                if starts(with: "!--", at: index) {
                    index = (find(sequence: "-->", from: index + 3) ?? bytes.count - 3) + 3
                } else {
                    index = (find(UInt8(ascii: ">"), from: index) ?? bytes.count - 1) + 1
                }
            } else if next == UInt8(ascii: "/") || next == UInt8(ascii: "?") {
                index = (find(UInt8(ascii: ">"), from: index) ?? bytes.count - 1) + 1
            } else if Self.isLetter(next) {
                tag()
            }
        }
    }

    /// A start tag at `index` (its name's first letter): keeps the link it holds, if any, and
    /// skips the raw text of elements whose content is not markup.
    private mutating func tag() {
        let nameStart = index
        while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") { index += 1 }
        let name = lowercased(nameStart..<index)
        let attributes = readAttributes(keeping: Self.wanted[name] ?? [])
        switch name {
        case "a", "area": if let href = attributes["href"] { references.append(decoded(href)) }
        case "link":
            if let href = attributes["href"], let rel = attributes["rel"], Self.isCanonical(decoded(rel)) { references.append(decoded(href)) }
        case "iframe", "frame": if let source = attributes["src"] { references.append(decoded(source)) }
        case "base": if base == nil, let href = attributes["href"] { base = decoded(href) }
        case "meta":
            if let name = attributes["name"], let content = attributes["content"] {
                let metaName = lowercased(name)
                if metaNames.contains(metaName) { metas.append((metaName, decoded(content))) }
            }
        case "script", "style", "textarea", "title", "xmp":
            index = findEndTag(name) ?? bytes.count
        default: break
        }
    }

    /// Attributes until the tag's ">", the values of `names` kept (raw, undecoded; the first of
    /// a name wins, as in HTML).
    private mutating func readAttributes(keeping names: Set<String>) -> [String: Range<Int>] {
        var kept: [String: Range<Int>] = [:]
        while index < bytes.count {
            while index < bytes.count, Self.isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1 }
            guard index < bytes.count, bytes[index] != UInt8(ascii: ">") else { index += 1; return kept }
            let nameStart = index
            while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">"),
                  bytes[index] != UInt8(ascii: "/") { index += 1 }
            if index == nameStart { index += 1; continue }  // a stray "=": not a name
            let nameEnd = index
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { continue }
            index += 1
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            let value: Range<Int>
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                let quote = bytes[index]
                let end = find(quote, from: index + 1) ?? bytes.count
                value = (index + 1)..<end
                index = min(bytes.count, end + 1)
            } else {
                let start = index
                while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                value = start..<index
            }
            if !names.isEmpty {
                let name = lowercased(nameStart..<nameEnd)
                if names.contains(name), kept[name] == nil { kept[name] = value }
            }
        }
        return kept
    }

    /// The attribute value with its character references decoded; notes bytes beyond ASCII.
    private mutating func decoded(_ range: Range<Int>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let byte = bytes[position]
            if byte >= 0x80 { nonASCII = true }
            if byte == UInt8(ascii: "&"), let (scalar, length) = reference(at: position, end: range.upperBound) {
                output += Array(String(Character(scalar)).utf8)
                if scalar.value >= 0x80 { nonASCII = true }
                position += length
                continue
            }
            output.append(byte)
            position += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A character reference at `position` ("&amp;", "&#38;", "&#x26;"), and its length.
    private func reference(at position: Int, end: Int) -> (Unicode.Scalar, Int)? {
        guard let semicolon = (position + 1..<min(end, position + 12)).first(where: { bytes[$0] == UInt8(ascii: ";") }) else { return nil }
        let body = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
        let value: UInt32?
        if body.hasPrefix("#x") || body.hasPrefix("#X") {
            value = UInt32(body.dropFirst(2), radix: 16)
        } else if body.hasPrefix("#") {
            value = UInt32(body.dropFirst())
        } else {
            value = Self.namedReferences[body]
        }
        guard let value, value > 0, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, semicolon - position + 1)
    }

    /// Where "</name" (any case) starts, from `index`.
    private func findEndTag(_ name: String) -> Int? {
        let target = Array(name.utf8)
        var position = index
        while let open = find(UInt8(ascii: "<"), from: position) {
            if open + 2 + target.count <= bytes.count, bytes[open + 1] == UInt8(ascii: "/"),
               (0..<target.count).allSatisfy({ Self.lower(bytes[open + 2 + $0]) == target[$0] }) {
                return open
            }
            position = open + 1
        }
        return nil
    }

    private func find(_ byte: UInt8, from start: Int) -> Int? {
        var position = start
        while position < bytes.count {
            if bytes[position] == byte { return position }
            position += 1
        }
        return nil
    }

    private func find(sequence: String, from start: Int) -> Int? {
        let target = Array(sequence.utf8)
        var position = start
        while let candidate = find(target[0], from: position) {
            if starts(with: sequence, at: candidate) { return candidate }
            position = candidate + 1
        }
        return nil
    }

    private func starts(with text: String, at position: Int) -> Bool {
        let target = Array(text.utf8)
        return position + target.count <= bytes.count && (0..<target.count).allSatisfy { bytes[position + $0] == target[$0] }
    }

    private func lowercased(_ range: Range<Int>) -> String { String(decoding: bytes[range].map(Self.lower), as: UTF8.self) }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D }

    private static func isCanonical(_ rel: String) -> Bool {
        rel.lowercased().split(whereSeparator: { $0.isWhitespace }).contains("canonical")
    }

    /// The attributes each element's link needs.
    private static let wanted: [String: Set<String>] = [
        "a": ["href"], "area": ["href"], "link": ["href", "rel"], "base": ["href"], "iframe": ["src"], "frame": ["src"],
        "meta": ["name", "content"],
    ]

    /// The named references a URL may hold.
    private static let namedReferences: [String: UInt32] = ["amp": 0x26, "lt": 0x3C, "gt": 0x3E, "quot": 0x22, "apos": 0x27, "nbsp": 0xA0]
}
