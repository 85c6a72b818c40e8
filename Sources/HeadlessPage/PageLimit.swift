/// A bound on one page's work that the load reached: what was left out and which
/// `PageLoader.Options` value decides it. The load goes on with what fits.
public enum PageLimit: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// More distinct subresources than `maximumSubresources`; the rest were not requested.
    case subresources(Int)
    /// The page's bytes reached `maximumPageBytes`; later subresources were not requested or cut short.
    case bytes(Int)
    /// `@import` chains deeper than `importDepth` were not followed.
    case importDepth(Int)
    /// Frames nested deeper than `frameDepth` were not scanned.
    case frameDepth(Int)

    public var description: String {
        switch self {
        case .subresources(let limit): "stopped at \(limit) subresources (maximumSubresources)"
        case .bytes(let limit): "stopped at \(limit) bytes for the page (maximumPageBytes)"
        case .importDepth(let limit): "style sheet @import chains cut at depth \(limit) (importDepth)"
        case .frameDepth(let limit): "frames nested deeper than \(limit) not loaded (frameDepth)"
        }
    }
}
