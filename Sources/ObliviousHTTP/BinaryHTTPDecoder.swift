import Foundation

/// Reads the parts of a Binary HTTP message (RFC 9292 Section 3) in order, strictly: every
/// length is checked against the input and the limits before use, and a message may end early
/// only where Section 3.8 allows truncation (before a field section or the content).
struct BinaryHTTPDecoder {
    private var reader: ByteReader
    private let limits: BinaryHTTPDecodingLimits
    private(set) var framing: BinaryHTTPFraming = .knownLength

    init(_ message: Data, limits: BinaryHTTPDecodingLimits) {
        reader = ByteReader(message)
        self.limits = limits
    }

    /// Reads the framing indicator, which must announce a request or a response as expected.
    mutating func readFramingIndicator(expectingRequest: Bool) throws(ObliviousHTTPError) {
        let indicator = try reader.readVarint("the framing indicator")
        switch indicator {
        case 0, 1: framing = .knownLength
        case 2, 3: framing = .indeterminateLength
        default: throw ObliviousHTTPError(.invalidFramingIndicator, "framing indicator \(indicator) is not 0, 1, 2 or 3")
        }
        guard (indicator % 2 == 0) == expectingRequest else {
            let found = indicator % 2 == 0 ? "request" : "response"
            throw ObliviousHTTPError(.invalidFramingIndicator, "framing indicator \(indicator) announces a \(found)")
        }
    }

    /// Method, scheme, authority and path (Section 3.4).
    mutating func readRequestControlData() throws(ObliviousHTTPError) -> (method: String, scheme: String, authority: String, path: String) {
        let method = try readControlString("method", valid: BinaryHTTPSyntax.isToken)
        let scheme = try readControlString("scheme", valid: BinaryHTTPSyntax.isScheme)
        let authority = try readControlString("authority", valid: BinaryHTTPSyntax.isAuthority)
        let path = try readControlString("path", valid: BinaryHTTPSyntax.isPath)
        return (method, scheme, authority, path)
    }

    /// A status code (Section 3.5): 100...199 informational, 200...599 final.
    mutating func readStatus() throws(ObliviousHTTPError) -> Int {
        let status = try reader.readVarint("the status code")
        guard (100...599).contains(status) else { throw ObliviousHTTPError(.invalidStatus, "status code \(status) is outside 100...599") }
        return Int(status)
    }

    /// A header or trailer section; an input that ends right here means an empty, truncated section.
    mutating func readFieldSection(isTrailer: Bool) throws(ObliviousHTTPError) -> [BinaryHTTPField] {
        let what = isTrailer ? "trailer section" : "header section"
        guard !reader.isAtEnd else { return [] }
        switch framing {
        case .knownLength:
            let length = try readLength("the \(what) length", limit: limits.maxFieldSectionLength)
            var section = ByteReader(try reader.readData(length, "the \(what)"))
            return try Self.mapTruncation(inside: what) { () throws(ObliviousHTTPError) in
                try Self.readFieldLines(from: &section, framing: .knownLength, limits: limits, isTrailer: isTrailer, what: what)
            }
        case .indeterminateLength:
            return try Self.readFieldLines(from: &reader, framing: .indeterminateLength, limits: limits, isTrailer: isTrailer, what: what)
        }
    }

    /// The content; an input that ends right here means empty, truncated content.
    private mutating func readContent() throws(ObliviousHTTPError) -> Data {
        guard !reader.isAtEnd else { return Data() }
        switch framing {
        case .knownLength:
            let length = try readLength("the content length", limit: limits.maxContentLength)
            return try reader.readData(length, "the content")
        case .indeterminateLength:
            var content = Data()
            while true {
                let length = try readLength("a content chunk length", limit: limits.maxContentLength)
                if length == 0 { return content }
                guard length <= limits.maxContentLength - content.count else {
                    throw ObliviousHTTPError(.limitExceeded, "content exceeds \(limits.maxContentLength) bytes")
                }
                content += try reader.readData(length, "a content chunk")
            }
        }
    }

    /// Header section, content, trailer section and padding: the part requests and responses share.
    mutating func readSections() throws(ObliviousHTTPError) -> (headerFields: [BinaryHTTPField], content: Data, trailerFields: [BinaryHTTPField]) {
        let headerFields = try readFieldSection(isTrailer: false)
        let content = try readContent()
        let trailerFields = try readFieldSection(isTrailer: true)
        try finish()
        return (headerFields, content, trailerFields)
    }

    /// Whatever follows the trailers must be zero padding (Section 3.8).
    private func finish() throws(ObliviousHTTPError) {
        guard reader.remainingBytesAreZero else {
            throw ObliviousHTTPError(.invalidPadding, "\(reader.remaining) bytes after the trailer section are not all zero padding")
        }
    }

    /// Field lines until the section reader ends (known length) or a zero name length (indeterminate).
    private static func readFieldLines(from section: inout ByteReader, framing: BinaryHTTPFraming,
                                       limits: BinaryHTTPDecodingLimits, isTrailer: Bool,
                                       what: String) throws(ObliviousHTTPError) -> [BinaryHTTPField] {
        var fields = [BinaryHTTPField]()
        var seenRegularField = false
        let start = section.offset
        while true {
            if framing == .knownLength, section.isAtEnd { return fields }
            let nameLength = try section.readVarint("a field name length in the \(what)")
            if nameLength == 0 {
                guard framing == .indeterminateLength else {
                    throw ObliviousHTTPError(.invalidFieldName, "a field name in the \(what) is empty")
                }
                return fields
            }
            guard fields.count < limits.maxFieldCount else {
                throw ObliviousHTTPError(.limitExceeded, "the \(what) has more than \(limits.maxFieldCount) field lines")
            }
            let sectionLimit = UInt64(max(0, limits.maxFieldSectionLength))
            guard nameLength <= sectionLimit else {
                throw ObliviousHTTPError(.limitExceeded, "the \(what) exceeds \(limits.maxFieldSectionLength) bytes")
            }
            let name = try section.readBytes(Int(nameLength), "a field name in the \(what)")
            try BinaryHTTPSyntax.validateName(name, isTrailer: isTrailer, seenRegularField: &seenRegularField)
            let valueLength = try section.readVarint("a field value length in the \(what)")
            guard valueLength <= sectionLimit else {
                throw ObliviousHTTPError(.limitExceeded, "the \(what) exceeds \(limits.maxFieldSectionLength) bytes")
            }
            let value = try section.readBytes(Int(valueLength), "a field value in the \(what)")
            let nameText = String(decoding: name, as: UTF8.self)
            guard BinaryHTTPSyntax.isFieldValue(value) else {
                throw ObliviousHTTPError(.invalidFieldValue, "the value of \"\(nameText)\" has NUL, CR, LF or surrounding whitespace")
            }
            guard section.offset - start <= limits.maxFieldSectionLength else {
                throw ObliviousHTTPError(.limitExceeded, "the \(what) exceeds \(limits.maxFieldSectionLength) bytes")
            }
            fields.append(BinaryHTTPField(name: nameText, value: Data(value)))
        }
    }

    private mutating func readControlString(_ what: String, valid: ([UInt8]) -> Bool) throws(ObliviousHTTPError) -> String {
        let length = try readLength("the \(what) length", limit: limits.maxControlDataLength)
        let bytes = try reader.readBytes(length, "the \(what)")
        guard valid(bytes) else { throw ObliviousHTTPError(.invalidControlData, "the \(what) has characters HTTP does not allow there") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A length prefix, bounded by `limit` before it is converted or used.
    private mutating func readLength(_ what: String, limit: Int) throws(ObliviousHTTPError) -> Int {
        let length = try reader.readVarint(what)
        guard length <= UInt64(max(0, limit)) else {
            throw ObliviousHTTPError(.limitExceeded, "\(what) \(length) exceeds the limit of \(limit)")
        }
        return Int(length)
    }

    /// Inside a length-delimited section, running off its end is a framing error, not truncation.
    private static func mapTruncation<T>(inside what: String,
                                         _ body: () throws(ObliviousHTTPError) -> T) throws(ObliviousHTTPError) -> T {
        do {
            return try body()
        } catch where error.code == .truncated {
            throw ObliviousHTTPError(.malformedMessage, "a field line runs past the end of the \(what)")
        }
    }
}
