import Foundation

/// An HTTP request in the Binary HTTP format (`message/bhttp`, RFC 9292): control data, header
/// fields, content and trailer fields, with an encoder and a strict decoder.
public struct BinaryHTTPRequest: Sendable, Hashable {
    /// The method, such as "GET"; a token.
    public var method: String
    /// The scheme, such as "https"; empty only for requests like CONNECT.
    public var scheme: String
    /// host[:port]; may be empty, in which case a Host header field can carry it.
    public var authority: String
    /// Path and query, such as "/hello.txt"; empty only for requests like CONNECT.
    public var path: String
    /// Header field lines, in order; repeated names are kept as separate lines.
    public var headerFields: [BinaryHTTPField]
    /// The request content (body).
    public var content: Data
    /// Trailer field lines, in order; no pseudo-fields.
    public var trailerFields: [BinaryHTTPField]

    /// A request; nothing is checked until it is encoded.
    public init(method: String = "GET", scheme: String = "https", authority: String, path: String = "/",
                headerFields: [BinaryHTTPField] = [], content: Data = Data(), trailerFields: [BinaryHTTPField] = []) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headerFields = headerFields
        self.content = content
        self.trailerFields = trailerFields
    }

    /// Decodes a binary request of either framing. Throws `.truncated`, `.invalidFramingIndicator`,
    /// `.invalidControlData`, `.invalidFieldName`, `.invalidFieldValue`, `.malformedMessage`,
    /// `.invalidPadding` or `.limitExceeded`; never traps, whatever the input.
    public init(decoding data: Data, limits: BinaryHTTPDecodingLimits = .default) throws(ObliviousHTTPError) {
        var decoder = BinaryHTTPDecoder(data, limits: limits)
        try decoder.readFramingIndicator(expectingRequest: true)
        let control = try decoder.readRequestControlData()
        method = control.method
        scheme = control.scheme
        authority = control.authority
        path = control.path
        (headerFields, content, trailerFields) = try decoder.readSections()
    }

    /// The binary encoding. `omittingEmptyTrailingSections` truncates empty trailing sections
    /// (RFC 9292 Section 3.8); `paddingLength` appends that many zero bytes. Throws if a part
    /// is not valid HTTP (`.invalidControlData`, `.invalidFieldName`, `.invalidFieldValue`).
    public func encoded(framing: BinaryHTTPFraming = .knownLength, omittingEmptyTrailingSections: Bool = false,
                        paddingLength: Int = 0) throws(ObliviousHTTPError) -> Data {
        var encoder = BinaryHTTPEncoder(framing: framing, isRequest: true)
        try encoder.writeRequestControlData(method: method, scheme: scheme, authority: authority, path: path)
        try encoder.writeSections(headerFields: headerFields, content: Array(content), trailerFields: trailerFields,
                                  truncating: omittingEmptyTrailingSections, paddingLength: paddingLength)
        return Data(encoder.bytes)
    }
}
