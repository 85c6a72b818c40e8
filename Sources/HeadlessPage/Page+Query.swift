import Foundation
import HTMLDOM
import CSSStyle

extension Page {
    /// The page's forms in tree order (see `HTMLDocument.forms(documentURL:)`).
    public var forms: [HTMLForm] { document.forms(documentURL: url) }

    /// The first form matching a CSS selector (e.g. `form#login`, `form[action]`).
    public func form(_ selector: String) throws(FormError) -> HTMLForm {
        let formElements = document.elements.filter { $0.name == "form" }
        guard let match = select(selector).first(where: { $0.name == "form" }),
              let index = formElements.firstIndex(where: { $0.isSame(as: match) }) else {
            throw FormError(.noSuchForm(selector))
        }
        return forms[index]
    }

    /// Elements matching a selector list (see `HTMLDocument.select`), each once, in tree order.
    public func select(_ selector: String) -> [HTMLElement] { document.select(selector) }

    /// The body's text, whitespace collapsed (what a test reads to expect a message).
    public var text: String {
(document.body ?? document.root)?.normalizedText ?? ""
    }

    /// The links (`a[href]`, `area[href]`) whose text contains `text` (case-insensitive).
    public func links(containing text: String) -> [HTMLElement] {
        select("a[href], area[href]").filter { $0.normalizedText.range(of: text, options: .caseInsensitive) != nil }
    }

    /// The URL relative links resolve against: `<base href>`, else the page's URL.
    public var baseURL: URL {
        document.elements.first { $0.name == "base" && $0.attribute("href") != nil }
            .flatMap { URL(string: $0.attribute("href")!, relativeTo: url)?.absoluteURL } ?? url
    }
}
