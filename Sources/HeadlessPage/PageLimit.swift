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
    /// The page's style sheets held more than `maximumStyleBytes`: the rest of their text was
    /// neither scanned for URLs nor applied.
    case styleBytes(Int)
    /// A document's cascade held more than `maximumStyleRules` rules: later rules do not apply.
    case styleRules(Int)

    public var description: String {
        switch self {
        case .subresources(let limit): "stopped at \(limit) subresources (maximumSubresources)"
        case .bytes(let limit): "stopped at \(limit) bytes for the page (maximumPageBytes)"
        case .importDepth(let limit): "style sheet @import chains cut at depth \(limit) (importDepth)"
        case .frameDepth(let limit): "frames nested deeper than \(limit) not loaded (frameDepth)"
        case .styleBytes(let limit): "style sheets cut at \(limit) bytes for the page (maximumStyleBytes)"
        case .styleRules(let limit): "style rules cut at \(limit) for a document (maximumStyleRules)"
        }
    }
}
