import Foundation

/// An HTTP response in the Binary HTTP format (`message/bhttp`, RFC 9292): any informational
/// (1xx) responses, the final status, header fields, content and trailer fields.
public struct BinaryHTTPResponse: Sendable, Hashable {
    /// One interim response: a 1xx status and its header fields.
    public struct InformationalResponse: Sendable, Hashable {
        /// 100...199.
        public var status: Int
        /// Its header field lines.
        public var headerFields: [BinaryHTTPField]

        /// An interim response; the status is checked when encoding.
        public init(status: Int, headerFields: [BinaryHTTPField] = []) {
            self.status = status
            self.headerFields = headerFields
        }
    }

    /// Interim 1xx responses, in the order they came.
    public var informationalResponses: [InformationalResponse]
    /// The final status, 200...599.
    public var status: Int
    /// Header field lines of the final response.
    public var headerFields: [BinaryHTTPField]
    /// The response content (body).
    public var content: Data
    /// Trailer field lines, in order; no pseudo-fields.
    public var trailerFields: [BinaryHTTPField]

    /// A response; nothing is checked until it is encoded.
    public init(status: Int, headerFields: [BinaryHTTPField] = [], content: Data = Data(),
                trailerFields: [BinaryHTTPField] = [], informationalResponses: [InformationalResponse] = []) {
        self.informationalResponses = informationalResponses
        self.status = status
        self.headerFields = headerFields
        self.content = content
        self.trailerFields = trailerFields
    }

    /// Decodes a binary response of either framing. Throws `.truncated`, `.invalidFramingIndicator`,
    /// `.invalidStatus`, `.invalidFieldName`, `.invalidFieldValue`, `.malformedMessage`,
    /// `.invalidPadding` or `.limitExceeded`; never traps, whatever the input.
    public init(decoding data: Data, limits: BinaryHTTPDecodingLimits = .default) throws(ObliviousHTTPError) {
        var decoder = BinaryHTTPDecoder(data, limits: limits)
        try decoder.readFramingIndicator(expectingRequest: false)
        var informational = [InformationalResponse]()
        var status = try decoder.readStatus()
        while status < 200 {
            guard informational.count < limits.maxInformationalResponses else {
                throw ObliviousHTTPError(.limitExceeded, "more than \(limits.maxInformationalResponses) informational responses")
            }
            informational.append(InformationalResponse(status: status, headerFields: try decoder.readFieldSection(isTrailer: false)))
            status = try decoder.readStatus()
        }
        informationalResponses = informational
        self.status = status
        (headerFields, content, trailerFields) = try decoder.readSections()
    }

    /// The binary encoding; the options are as for `BinaryHTTPRequest.encoded`. Throws
    /// `.invalidStatus` for a status out of range, or for invalid fields as the decoder would.
    public func encoded(framing: BinaryHTTPFraming = .knownLength, omittingEmptyTrailingSections: Bool = false,
                        paddingLength: Int = 0) throws(ObliviousHTTPError) -> Data {
        var encoder = BinaryHTTPEncoder(framing: framing, isRequest: false)
        for response in informationalResponses {
            try encoder.writeStatus(response.status, informational: true)
            try encoder.writeFieldSection(response.headerFields, isTrailer: false)
        }
        try encoder.writeStatus(status, informational: false)
        try encoder.writeSections(headerFields: headerFields, content: Array(content), trailerFields: trailerFields,
                                  truncating: omittingEmptyTrailingSections, paddingLength: paddingLength)
        return Data(encoder.bytes)
    }
}
