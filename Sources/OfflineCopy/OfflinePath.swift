import Foundation
import CSSStyle

/// Where a saved resource goes inside the `--save` folder: a pure mapping from a URL to path
/// components that cannot leave the folder, whatever the server put in the URL.
///
/// Every component is 1 to `maximumComponentLength` bytes of `A-Z a-z 0-9 - _ . ~`, never `.`
/// or `..`, so it holds no separator, no NUL and no dot segment; there are at most
/// `maximumDepth` of them. Percent-encoded separators (`%2F`, `%5C`) are decoded and so never
/// split a component; decoded dot segments (`%2e%2e`) are resolved within the URL's own path
/// (never above it). A component that had to change gets a hash of its original text, so
/// distinct URLs stay distinct files.
public enum OfflinePath {
    /// Longest component, in bytes (well under NAME_MAX).
    public static let maximumComponentLength = 120
    /// Most components, host folder included (keeps paths well under PATH_MAX).
    public static let maximumDepth = 24

    /// The entry point: `host[_port]`, then the URL's path segments, with `index.html` for a
    /// folder, the query folded into the file name and `.html` added to an HTML file that lacks it.
    public static func components(for url: URL, isHTML: Bool) -> [String] {
        let host = (url.host ?? "host").lowercased() + (url.port.map { "_\($0)" } ?? "")
        let rawPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        var segments: [String] = []
        for raw in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            let decoded = String(raw).removingPercentEncoding ?? String(raw)
            switch decoded {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            default: segments.append(decoded)
            }
        }
        if segments.isEmpty || rawPath.hasSuffix("/") { segments.append("index.html") }
        var name = segments.removeLast()
        if let query = url.query, !query.isEmpty {
            let (stem, ext) = split(name)
            let readable = String(decoding: query.utf8.map { CharacterSetCheck.isAlphanumeric(Unicode.Scalar($0)) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
            name = stem + "_" + readable + (ext.isEmpty ? "" : "." + ext)
        }
        if isHTML && !name.lowercased().hasSuffix(".html") && !name.lowercased().hasSuffix(".htm") { name += ".html" }
        var folders = segments
        if folders.count > maximumDepth - 2 {
            // Fold the deepest folders into one name rather than nest without end.
            let rest = folders[(maximumDepth - 3)...].joined(separator: "/")
            folders = Array(folders[..<(maximumDepth - 3)]) + ["deep_" + hash(rest)]
        }
        return [safeName(host)] + folders.map(safeName) + [safeName(name)]
    }

    /// True when `component` is one this mapper could produce: what a writer checks before use.
    public static func isSafe(_ component: String) -> Bool {
        let bytes = Array(component.utf8)
        return !bytes.isEmpty && bytes.count <= maximumComponentLength && component != "." && component != ".."
            && bytes.allSatisfy(isSafeByte)
    }

    /// `text` as a safe component: unchanged when it already is one, else its safe characters
    /// (others become `_`), shortened, with a hash of the original before the extension.
    static func safeName(_ text: String) -> String {
        if isSafe(text) { return text }
        let (stem, ext) = split(text)
        let cleanExt = ext.utf8.count <= 10 && ext.utf8.allSatisfy(isSafeByte) ? ext : ""
        let cleanStem = String(decoding: stem.utf8.prefix(maximumComponentLength).map { isSafeByte($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
        let suffix = "_" + hash(text) + (cleanExt.isEmpty ? "" : "." + cleanExt)
        return String(cleanStem.prefix(maximumComponentLength - suffix.utf8.count)) + suffix
    }

    private static func isSafeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// ("name", "ext") for "name.ext"; ("name", "") without an extension or for a leading dot.
    private static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// 64-bit FNV-1a of the UTF-8 bytes, as 16 hex digits: stable across runs and machines.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
