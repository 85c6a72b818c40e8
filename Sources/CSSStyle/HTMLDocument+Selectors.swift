import HTMLDOM

// Querying by selector lives with the selector engine: the DOM module sits below the CSS one,
// which matches selectors against a `DocumentSnapshot` of the document.
extension HTMLDocument {
    /// Elements matching a CSS selector list (Selectors Level 4: combinators, attribute
    /// selectors, `:not()`, `:is()`, `:where()`, `:has()`, structural pseudo-classes; dynamic
    /// ones such as `:hover` never match), in tree order; empty for an invalid selector.
    public func select(_ selector: String) -> [HTMLElement] {
        guard let list = SelectorList(selector) else { return [] }
        let snapshot = DocumentSnapshot(self)
        return snapshot.nodes.indices.filter { list.matches($0, in: snapshot) }.map { snapshot.elements[$0] }
    }

    /// Whether `selector` is a selector list `select` understands.
    public static func isValidSelector(_ selector: String) -> Bool { SelectorList(selector) != nil }
}
