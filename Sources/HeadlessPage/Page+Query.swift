import Foundation

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

    /// Elements matching a selector list: the simple selectors `HTMLDocument.select` takes,
    /// separated by commas, each element once, in tree order.
    public func select(_ selector: String) -> [HTMLElement] {
        let parts = CSSSelectorList.split(selector)
        if parts.count == 1 { return document.select(parts[0]) }
        var matched = Set<UnsafeMutableRawPointer>()
        for part in parts { for element in document.select(part) { matched.insert(element.identity) } }
        return document.elements.filter { matched.contains($0.identity) }
    }

    /// The body's text, whitespace collapsed (what a test reads to expect a message).
    public var text: String {
        (document.elements.first { $0.name == "body" } ?? document.root)?.normalizedText ?? ""
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

/// Splits a selector list at commas outside brackets and quotes.
enum CSSSelectorList {
    static func split(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        var depth = 0
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
            } else if character == ",", depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts.filter { !$0.isEmpty }
    }
}
