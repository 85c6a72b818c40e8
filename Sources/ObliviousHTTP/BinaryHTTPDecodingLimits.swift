/// Bounds a decoder enforces so a hostile message cannot make it allocate without limit; a message
/// over any of them fails with `.limitExceeded`.
public struct BinaryHTTPDecodingLimits: Sendable, Hashable {
    /// Longest method, scheme, authority or path, in bytes.
    public var maxControlDataLength: Int
    /// Longest field section (header or trailer, informational ones included), in encoded bytes.
    public var maxFieldSectionLength: Int
    /// Most field lines in one section.
    public var maxFieldCount: Int
    /// Longest content, in bytes.
    public var maxContentLength: Int
    /// Most informational (1xx) responses before the final one.
    public var maxInformationalResponses: Int

    /// Limits with the given values; each defaults to the `default` one.
    public init(maxControlDataLength: Int = 8 * 1024, maxFieldSectionLength: Int = 64 * 1024, maxFieldCount: Int = 256,
                maxContentLength: Int = 16 * 1024 * 1024, maxInformationalResponses: Int = 8) {
        self.maxControlDataLength = maxControlDataLength
        self.maxFieldSectionLength = maxFieldSectionLength
        self.maxFieldCount = maxFieldCount
        self.maxContentLength = maxContentLength
        self.maxInformationalResponses = maxInformationalResponses
    }

    /// 8 KiB control data, 64 KiB and 256 lines per field section, 16 MiB content, 8 informational responses.
    public static let `default` = BinaryHTTPDecodingLimits()
}
