import Foundation

/// Reading an HTTP/1.x-style response head as libcurl hands it over, one line at a time (it
/// gives HTTP/2 heads in the same form): the status line, then `Name: value` lines. No I/O.
package enum ResponseHead {
    /// The status code and protocol of a status line ("HTTP/2 200", "HTTP/1.1 204 No Content");
    /// HTTP/1.1 and 0 when there is none or it is malformed (`StatusLine`).
    package static func statusLine(_ line: String?) -> (version: String, status: Int) {
        guard let line, let parsed = StatusLine(line) else { return ("HTTP/1.1", 0) }
        return (parsed.version, parsed.status)
    }

    /// Whether a status line is a 2xx one.
    package static func isSuccess(_ line: String?) -> Bool { line.flatMap { StatusLine($0) }?.isSuccess ?? false }

    /// "Name: value" lines after the status line, names and values trimmed of spaces, tabs and
    /// line ends. Works on the UTF-8 bytes: Foundation's trimming costs several times more, for
    /// every field of every response.
    package static func fields(_ lines: [String]) -> HTTPFields {
        HTTPFields(lines.dropFirst().compactMap { line -> HTTPFields.Field? in
            let bytes = line.utf8
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = trimmed(bytes[..<colon])
            return name.isEmpty ? nil : (String(decoding: name, as: UTF8.self), String(decoding: trimmed(bytes[bytes.index(after: colon)...]), as: UTF8.self))
        })
    }

    /// First and last byte of a Content-Range `bytes FIRST-LAST/LENGTH` (RFC 9110 §14.4); nil
    /// for the unsatisfied form or anything malformed.
    package static func byteRange(_ text: String) -> (first: Int, last: Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes "), let slash = trimmed.firstIndex(of: "/") else { return nil }
        let bounds = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 6)..<slash].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0].trimmingCharacters(in: .whitespaces)),
              let last = Int(bounds[1].trimmingCharacters(in: .whitespaces)), first >= 0, first <= last else { return nil }
        return (first, last)
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var slice = bytes
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }
}
