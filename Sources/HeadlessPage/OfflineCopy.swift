import Foundation

/// Writes a loaded page as a local copy that opens offline: every loaded resource under
/// `DIR/<host>/<path>`, and the HTML (page and frames) and CSS rewritten to point at those files
/// with relative references. Resources that did not load keep their original URLs.
public enum OfflineCopy {
    /// Writes the copy; returns the path of the page's own HTML file. The page must have been
    /// loaded with `keepBodies`.
    @discardableResult
    public static func write(_ page: Page, to directory: URL) throws -> URL {
        let all = [page.main] + page.resources
        var files: [URL: URL] = [:]  // remote URL -> local file
        for resource in all where resource.body != nil && (200..<300).contains(resource.statusCode ?? 0) {
            files[resource.url] = directory.appendingPathComponent(localPath(for: resource.url, isHTML: resource.mimeType?.contains("html") == true))
        }
        files[page.url] = files[page.main.url]
        for resource in all {
            guard let body = resource.body, let file = files[resource.url] else { continue }
            var output = body
            let base = resource.url == page.main.url ? page.url : resource.url
            if resource.mimeType?.contains("html") == true, let document = HTMLDocument(data: body, url: base) {
                rewrite(document, base: base, file: file, files: files)
                output = document.serialized()
            } else if resource.mimeType == "text/css" || resource.kind == .stylesheet {
                output = Data(rewriteCSS(String(decoding: body, as: UTF8.self), base: base, file: file, files: files).utf8)
            }
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try output.write(to: file)
        }
        return files[page.url] ?? directory
    }

    /// "host/path", with index.html for directories and the query folded into the file name.
    static func localPath(for url: URL, isHTML: Bool) -> String {
        var path = url.path.isEmpty ? "/" : url.path
        if path.hasSuffix("/") { path += "index.html" }
        if let query = url.query, !query.isEmpty {
            let safe = query.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
            let ext = (path as NSString).pathExtension
            path = (path as NSString).deletingPathExtension + "_" + safe + (ext.isEmpty ? "" : "." + ext)
        }
        if isHTML && !path.hasSuffix(".html") && !path.hasSuffix(".htm") { path += ".html" }
        let host = (url.host ?? "host") + (url.port.map { "_\($0)" } ?? "")
        return host + path
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
        guard let url = SubresourceScanner.resolve(reference, against: base), let target = files[url] else { return nil }
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

    /// Rewrites url(...) and @import references that were saved.
    static func rewriteCSS(_ css: String, base: URL, file: URL, files: [URL: URL]) -> String {
        var result = css
        for reference in Set(CSSURLScanner.references(in: css).map(\.url)) {
            guard let local = local(reference, base: base, file: file, files: files) else { continue }
            for (old, new) in [("url(\(reference))", "url(\(local))"), ("url(\"\(reference)\")", "url(\"\(local)\")"),
                               ("url('\(reference)')", "url('\(local)')"), ("\"\(reference)\"", "\"\(local)\""), ("'\(reference)'", "'\(local)'")] {
                result = result.replacingOccurrences(of: old, with: new)
            }
        }
        return result
    }
}
