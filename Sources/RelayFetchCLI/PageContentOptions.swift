import Foundation
import HeadlessPage

/// What `relayfetch page` prints instead of its summary: the serialized DOM, the readable text,
/// the elements a CSS selector picks (as HTML, text, one attribute or JSON) or the links.
/// Anchors: Chromium's `--dump-dom`, htmlq and pup.
struct PageContentOptions {
    static let help = """
    Content options (printed to stdout instead of the summary):
      --dump-dom               the document after parsing, serialized as Chromium's --dump-dom
                               prints it (doctype, html, head and body as the parser inserts them)
      --text                   the page's readable text, roughly as innerText gives it: blocks on
                               lines of their own, script, style and hidden elements left out;
                               with --select, the text of each match instead of its HTML
      --select CSS             each element a CSS selector list matches, as HTML, one per line;
                               repeatable (the matches of each selector in turn)
      --attr NAME              with --select: each match's NAME attribute instead (a match
                               without one prints nothing)
      --select-json            with --select: a JSON array of {selector, tag, text, attributes,
                               html}, one object per match
      --links                  the links (a, area and link href), absolute, each URL once, one
                               per line as URL<TAB>rel (rel keywords merged, empty if none)
      --require-match          with --select: exit 1 when a selector matches nothing
    Give one of --dump-dom, --text, --select and --links. They take stdout, so not with --json;
    --har, --warc and --save still write their files (without the "saved:" line).
    """

    private enum Output {
        case dom, text, links
        case select(format: SelectionFormat)
    }

    private enum SelectionFormat {
        case html, text, attribute(String), json
    }

    private var dumpDOM = false
    private var text = false
    private var links = false
    private var selectors: [String] = []
    private var attribute: String?
    private var selectJSON = false
    private var requireMatch = false
    private var output: Output?

    /// Whether anything is printed instead of the summary.
    var isRequested: Bool { output != nil }

    /// Takes the scanner's current argument when it is one of these options.
    mutating func parse(_ scanner: inout ArgumentScanner) throws -> Bool {
        switch scanner.current {
        case "--dump-dom": dumpDOM = true
        case "--text": text = true
        case "--links": links = true
        case "--select-json": selectJSON = true
        case "--require-match": requireMatch = true
        case "--attr": attribute = try scanner.value().lowercased()
        case "--select":
            let selector = try scanner.value()
            guard HTMLDocument.isValidSelector(selector) else {
                throw UsageError("--select needs a CSS selector list (such as h1, a[href] or main > p), not \(UsageError.quoted(selector))")
            }
            selectors.append(selector)
        default: return false
        }
        return true
    }

    /// Checks the combination given, after every argument was read.
    mutating func validate(json: Bool) throws {
        let select = !selectors.isEmpty
        let modes = [dumpDOM ? "--dump-dom" : nil, text && !select ? "--text" : nil, select ? "--select" : nil, links ? "--links" : nil]
            .compactMap { $0 }
        guard modes.count <= 1 else { throw UsageError("\(modes.joined(separator: " and ")) both print the page: give one of them") }
        for (given, option) in [(attribute != nil, "--attr"), (selectJSON, "--select-json"), (requireMatch, "--require-match")] where given && !select {
            throw UsageError("\(option) needs --select")
        }
        let formats = [attribute.map { _ in "--attr" }, selectJSON ? "--select-json" : nil, text && select ? "--text" : nil].compactMap { $0 }
        guard formats.count <= 1 else { throw UsageError("\(formats.joined(separator: " and ")) both choose what --select prints: give one of them") }
        if let mode = modes.first, json { throw UsageError("--json and \(mode) both print to stdout: give one of them") }
        if dumpDOM { output = .dom }
        if text && !select { output = .text }
        if links { output = .links }
        if select {
            output = .select(format: attribute.map { .attribute($0) } ?? (selectJSON ? .json : text ? .text : .html))
        }
    }

    /// The content of `page` to print, and whether every selector found what `--require-match`
    /// asks of it (the ones that did not, by their text).
    func render(_ page: Page) throws -> (output: Data, unmatched: [String]) {
        switch output {
        case nil: return (Data(), [])
        case .dom: return (Self.lines([page.document.domDump]), [])
        case .text: return (Self.lines([(page.document.body ?? page.document.root)?.innerText ?? ""]), [])
        case .links:
            return (Self.lines(page.links.map { $0.url.absoluteString + "\t" + $0.relations.joined(separator: " ") }), [])
        case .select(let format):
            let matches = selectors.map { (selector: $0, elements: page.select($0)) }
            var unmatched: [String] = []
            if requireMatch {
                for (selector, elements) in matches {
                    let found = if case .attribute(let name) = format { elements.contains { $0.attribute(name) != nil } } else { !elements.isEmpty }
                    if !found { unmatched.append(selector) }
                }
            }
            return (try Self.selection(matches, format: format), unmatched)
        }
    }

    private static func selection(_ matches: [(selector: String, elements: [HTMLElement])], format: SelectionFormat) throws -> Data {
        let all = matches.flatMap { match in match.elements.map { (match.selector, $0) } }
        switch format {
        case .html: return lines(all.map { $0.1.outerHTML })
        case .text: return lines(all.map { $0.1.innerText })
        case .attribute(let name): return lines(all.compactMap { $0.1.attribute(name) })
        case .json:
            let objects = all.map { selector, element -> [String: Any] in
                ["selector": selector, "tag": element.name, "text": element.innerText, "html": element.outerHTML,
                 "attributes": Dictionary(element.attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })]
            }
            return try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
        }
    }

    private static func lines(_ items: [String]) -> Data {
        Data(items.map { $0 + "\n" }.joined().utf8)
    }
}
