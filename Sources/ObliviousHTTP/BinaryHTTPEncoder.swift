import WireFormat

/// Writes the parts of a Binary HTTP message (RFC 9292 Section 3) in order, checking each against
/// the same rules the decoder enforces, so this module never emits a message it would reject.
struct BinaryHTTPEncoder {
    private(set) var bytes: [UInt8] = []
    let framing: BinaryHTTPFraming

    init(framing: BinaryHTTPFraming, isRequest: Bool) {
        self.framing = framing
        bytes.append(UInt8(framing.indicator(isRequest: isRequest)))
    }

    mutating func writeRequestControlData(method: String, scheme: String, authority: String,
                                          path: String) throws(ObliviousHTTPError) {
        try writeControlString(method, "method", valid: BinaryHTTPSyntax.isToken)
        try writeControlString(scheme, "scheme", valid: BinaryHTTPSyntax.isScheme)
        try writeControlString(authority, "authority", valid: BinaryHTTPSyntax.isAuthority)
        try writeControlString(path, "path", valid: BinaryHTTPSyntax.isPath)
    }

    mutating func writeStatus(_ status: Int, informational: Bool) throws(ObliviousHTTPError) {
        let allowed = informational ? 100...199 : 200...599
        guard allowed.contains(status) else {
            let kind = informational ? "an informational" : "a final"
            throw ObliviousHTTPError(.invalidStatus, "\(status) is not \(kind) status code (\(allowed))")
        }
        bytes.appendVarint(count: status)  // 100...599, checked above
    }

    mutating func writeFieldSection(_ fields: [BinaryHTTPField], isTrailer: Bool) throws(ObliviousHTTPError) {
        try BinaryHTTPSyntax.validate(fields, isTrailer: isTrailer)
        var lines = [UInt8]()
        for field in fields {
            lines.appendVarint(count: field.name.utf8.count)
            lines += field.name.utf8
            lines.appendVarint(count: field.value.count)
            lines += field.value
        }
        switch framing {
        case .knownLength:
            bytes.appendVarint(count: lines.count)
            bytes += lines
        case .indeterminateLength:
            bytes += lines
            bytes.append(0)
        }
    }

    /// Content; with indeterminate-length framing as one chunk (if any) and the terminator.
    private mutating func writeContent(_ content: [UInt8]) {
        bytes.appendVarint(count: content.count)
        bytes += content
        if framing == .indeterminateLength, !content.isEmpty { bytes.append(0) }
    }

    /// Header section, content, trailer section and padding: the part requests and responses share.
    /// With `truncating`, empty trailing sections are left out (RFC 9292 Section 3.8).
    mutating func writeSections(headerFields: [BinaryHTTPField], content: [UInt8], trailerFields: [BinaryHTTPField],
                                truncating: Bool, paddingLength: Int) throws(ObliviousHTTPError) {
        let truncation = BinaryHTTPTruncation(enabled: truncating, headersEmpty: headerFields.isEmpty,
                                              contentEmpty: content.isEmpty, trailersEmpty: trailerFields.isEmpty)
        if truncation.writesHeaders { try writeFieldSection(headerFields, isTrailer: false) }
        if truncation.writesContent { writeContent(content) }
        if truncation.writesTrailers { try writeFieldSection(trailerFields, isTrailer: true) }
        bytes += repeatElement(0, count: max(0, paddingLength))
    }

    private mutating func writeControlString(_ value: String, _ what: String,
                                             valid: ([UInt8]) -> Bool) throws(ObliviousHTTPError) {
        let utf8 = Array(value.utf8)
        guard valid(utf8) else { throw ObliviousHTTPError(.invalidControlData, "the \(what) \(value.debugDescription) is not valid HTTP") }
        bytes.appendVarint(count: utf8.count)
        bytes += utf8
    }
}
