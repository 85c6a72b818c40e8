import Foundation
import HTMLDOM

/// The style sheets that apply to a document, in cascade order: each `<link rel=stylesheet>`
/// (not an alternate or disabled one) and `<style>` whose `media` matches and which is untitled
/// or in the preferred style sheet set, in tree order, each
/// preceded by the sheets it `@import`s with a matching media list. Sheet bodies come from
/// what the page loader fetched; a sheet that did not load adds nothing.
package struct DocumentStyleSheets {
    /// A fetched sheet: the URL after redirects (its base) and its text.
    package struct Loaded: Sendable {
        let url: URL
        let text: String

        package init(url: URL, text: String) {
            self.url = url
            self.text = text
        }
    }

    let media: MediaQuery
    let loaded: [URL: Loaded]
    let importDepth: Int
    /// Rules the whole cascade keeps (the page loader's `maximumStyleRules` option).
    package var maximumRules = Int.max

    package init(media: MediaQuery, loaded: [URL: Loaded], importDepth: Int) {
        self.media = media
        self.loaded = loaded
        self.importDepth = importDepth
    }

    /// The cascade, and whether `maximumRules` cut it short.
    package func sheets(of document: HTMLDocument, baseURL: URL) -> (sheets: [StyleResolver.Sheet], rulesCut: Bool) {
        var result: [StyleResolver.Sheet] = []
        var budget = RuleBudget(left: maximumRules)
        // The preferred style sheet set: `<meta http-equiv=Default-Style>`, else the first titled
        // sheet's title; titled sheets of another set do not apply (untitled ones always do).
        var preferred = document.xpath("//meta[@http-equiv]").last { $0.attribute("http-equiv")?.lowercased() == "default-style" }?
            .attribute("content")
        func inPreferredSet(_ element: HTMLElement) -> Bool {
            guard let title = element.attribute("title"), !title.isEmpty else { return true }
            if preferred == nil { preferred = title }
            return title == preferred
        }
        for element in document.elements {
            if budget.isCut { break }
            switch element.name {
            case "link":
                let rel = Set((element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }))
                guard rel.contains("stylesheet"), !rel.contains("alternate"), element.attribute("disabled") == nil,
                      inPreferredSet(element), media.matches(element.attribute("media") ?? ""),
                      let href = element.attribute("href"), let url = SubresourceURL.resolve(href.trimmingCharacters(in: .whitespacesAndNewlines), against: baseURL),
                      let sheet = loaded[url] else { continue }
                var visiting: Set<URL> = [url]
                append(budget.parse(sheet.text, media: media), base: sheet.url, depth: 0, visiting: &visiting, budget: &budget, to: &result)
            case "style":
                guard inPreferredSet(element), media.matches(element.attribute("media") ?? "") else { continue }
                var visiting: Set<URL> = []
                append(budget.parse(element.text, media: media), base: baseURL, depth: 0, visiting: &visiting, budget: &budget, to: &result)
            default:
                continue
            }
        }
        return (result, budget.isCut)
    }

    /// What is left of the cascade's rules, taken by each sheet as it is parsed.
    private struct RuleBudget {
        var left: Int
        var isCut = false

        mutating func parse(_ text: String, media: MediaQuery) -> StyleSheet {
            let sheet = StyleSheet(parsing: text, media: media, maximumRules: left)
            left -= sheet.ruleCount
            isCut = isCut || sheet.isCut
            return sheet
        }
    }

    private func append(_ sheet: StyleSheet, base: URL, depth: Int, visiting: inout Set<URL>, budget: inout RuleBudget,
                        to result: inout [StyleResolver.Sheet]) {
        if depth < importDepth {
            for rule in sheet.imports where media.matches(rule.media) {
                guard let url = SubresourceURL.resolve(rule.url, against: base), !visiting.contains(url), let imported = loaded[url] else { continue }
                visiting.insert(url)
                append(budget.parse(imported.text, media: media), base: imported.url, depth: depth + 1, visiting: &visiting, budget: &budget,
                       to: &result)
                visiting.remove(url)
            }
        }
        result.append(StyleResolver.Sheet(sheet: sheet, base: base))
    }
}
