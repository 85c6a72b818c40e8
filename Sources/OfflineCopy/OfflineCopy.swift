import Foundation
import HTMLDOM
import CSSStyle
import HeadlessPage

/// Writes a loaded page as a local copy that opens offline: every loaded resource under
/// `DIR/<host>/<path>` (as `OfflinePath` maps it: nothing can land outside `DIR`), and the HTML
/// (page and frames) and CSS rewritten to point at those files with relative references.
/// Resources that did not load, or could not be saved, keep their original URLs.
public enum OfflineCopy {
    /// Writes the copy; returns the path of the page's own HTML file. The page must have been
    /// loaded with `keepBodies`. A subresource that cannot be written safely (a symbolic link or
    /// a file where a folder belongs, a name two URLs share) is skipped and reported to
    /// `skipped`; throws when the folder or the page's own file cannot be written.
    @discardableResult
    public static func write(_ page: Page, to directory: URL,
                             skipped: ((URL, OfflineCopyError) -> Void)? = nil) throws -> URL {
        let folder = try SaveFolder(directory)
        let all = [page.main] + page.resources
        let saved = all.filter { $0.exchange.body.isKept && (200..<300).contains($0.statusCode ?? 0) }
        var layout = OfflineLayout()
        var paths: [URL: [String]] = [:]
        for resource in saved {
            let wanted = OfflinePath.components(for: resource.url, isHTML: resource.exchange.response.mimeType?.contains("html") == true)
            if let path = layout.place(wanted, for: resource.url) {
                paths[resource.url] = path
            } else if resource.url != page.main.url {
                skipped?(resource.url, OfflineCopyError(path: wanted.joined(separator: "/"), reason: "another saved resource has this name"))
            }
        }
        var files = paths.mapValues { directory.appendingPathComponent($0.joined(separator: "/")) }
        files[page.url] = files[page.main.url]
        for resource in saved {
            guard let path = paths[resource.url], let file = files[resource.url] else { continue }
            let body: Data
            switch resource.exchange.body {
            case .none: continue
            case .spooled(let spooled):
                // Spooled bodies are never HTML or CSS (those stay in memory): copied as they are, chunk by chunk.
                do { try folder.write(at: path, body: { try spooled.forEachChunk($0) }) } catch { skipped?(resource.url, error) }
                continue
            case .data(let data): body = data
            }
            var output = body
            let base = resource.url == page.main.url ? page.url : resource.url
            let mimeType = resource.exchange.response.mimeType
            if mimeType?.contains("html") == true, let document = HTMLDocument(data: body, url: base) {
                rewrite(document, base: base, file: file, files: files)
                output = document.serialized()
            } else if mimeType == "text/css" || resource.kind == .stylesheet {
                output = Data(rewriteCSS(String(decoding: body, as: UTF8.self), base: base, file: file, files: files).utf8)
            }
            do {
                try folder.write(output, at: path)
            } catch {
                if resource.url == page.main.url { throw error }
                skipped?(resource.url, error)
            }
        }
        return files[page.url] ?? directory
    }

    /// `target` relative to the directory of `file`.
    static func relative(_ target: URL, from file: URL) -> String {
        let from = file.deletingLastPathComponent().standardizedFileURL.pathComponents
        let to = target.standardizedFileURL.pathComponents
        var common = 0
        while common < min(from.count, to.count), from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        return (ups + to[common...]).joined(separator: "/")
    }

    private static func local(_ reference: String, base: URL, file: URL, files: [URL: URL]) -> String? {
        guard let url = SubresourceURL.resolve(reference, against: base), let target = files[url] else { return nil }
        return relative(target, from: file)
    }

    private static func rewrite(_ document: HTMLDocument, base documentURL: URL, file: URL, files: [URL: URL]) {
        var base = documentURL
        for element in document.xpath("//base[@href]") {
            if let href = element.attribute("href"), let url = URL(string: href, relativeTo: documentURL) { base = url.absoluteURL }
            element.remove()  // local references are relative to the saved file
        }
        for element in document.elements {
            for name in ["src", "href", "poster", "data", "xlink:href"] {
                guard let value = element.attribute(name) else { continue }
                if name == "href" && element.name == "a" { continue }
                if let local = local(value, base: base, file: file, files: files) { element.setAttribute(name, local) }
            }
            if let srcset = element.attribute("srcset") {
                let candidates = srcset.split(separator: ",").map { candidate -> String in
                    var parts = candidate.split(whereSeparator: { $0.isWhitespace }).map(String.init)
                    if let first = parts.first, let local = local(first, base: base, file: file, files: files) { parts[0] = local }
                    return parts.joined(separator: " ")
                }
                element.setAttribute("srcset", candidates.joined(separator: ", "))
            }
            if let style = element.attribute("style") {
                element.setAttribute("style", rewriteCSS(style, base: base, file: file, files: files))
            }
            if element.name == "style" {
                element.setText(rewriteCSS(element.text, base: base, file: file, files: files))
            }
        }
    }

    /// References rewritten per style sheet at most: a page load scans no more than its
    /// subresource limit of them, so later ones were never saved; this bounds a hostile sheet's
    /// cost in the save step as the limit does in the load.
    static let maximumCSSReferences = 100_000

    /// Rewrites url(...) and @import references that were saved, in one pass.
    static func rewriteCSS(_ css: String, base: URL, file: URL, files: [URL: URL]) -> String {
        CSSURLScanner.rewrite(css, limit: maximumCSSReferences) { local($0.url, base: base, file: file, files: files) }
    }
}
