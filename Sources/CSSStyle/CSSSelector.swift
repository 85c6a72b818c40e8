import HTMLDOM
/// A selector list of CSS Selectors Level 4, as far as a document without layout, script or
/// user can answer it: type, `#id`, `.class` and attribute selectors (`=`, `~=`, `|=`, `^=`,
/// `$=`, `*=`, with `i`/`s` flags), the four combinators, `:not()`, `:is()`, `:where()`,
/// `:has()`, structural pseudo-classes (`:nth-child(An+B of S)` and the rest), `:root`,
/// `:empty`, `:link` and the form states that attributes decide. Dynamic pseudo-classes
/// (`:hover`, `:focus`, `:visited`, `:target`...) never match, as in a page nobody touches.
/// Pseudo-elements are kept aside: `::before`/`::after` boxes matter to what a page loads.
/// Parsing follows the spec's error handling: one invalid selector invalidates the whole list
/// (a style rule with one is dropped), except inside the forgiving `:is()` and `:where()`.
struct SelectorList {
    let selectors: [ComplexSelector]

    init?(_ text: String) {
        var parser = SelectorParser(text)
        guard let selectors = parser.parseList(forgiving: false), parser.atEnd, !selectors.isEmpty else { return nil }
        self.selectors = selectors
    }

    init(selectors: [ComplexSelector]) { self.selectors = selectors }

    /// True when some selector without a pseudo-element matches the element.
    func matches(_ index: Int, in snapshot: DocumentSnapshot) -> Bool {
        selectors.contains { $0.pseudoElement == nil && $0.matches(index, in: snapshot) }
    }
}

/// Compound selectors joined by combinators, rightmost first (matching starts at the subject).
struct ComplexSelector {
    enum Combinator { case descendant, child, nextSibling, subsequentSibling }

    enum PseudoElement: Hashable {
        case before, after, marker
        /// `::first-line` and `::first-letter` style the element's own text.
        case firstText
        /// Any other (`::selection`, `::placeholder`, `::-webkit-scrollbar`...): boxes that load nothing.
        case other
    }

    /// The compounds, the subject first.
    var compounds: [CompoundSelector]
    /// `combinators[i]` joins `compounds[i]` to `compounds[i + 1]` (the one on its left).
    var combinators: [Combinator]
    var pseudoElement: PseudoElement?

    /// (ids, classes/attributes/pseudo-classes, types/pseudo-elements) packed in one number.
    var specificity: Int {
        compounds.reduce(pseudoElement == nil ? 0 : 1) { $0 + $1.specificity }
    }

    func matches(_ index: Int, in snapshot: DocumentSnapshot) -> Bool { match(0, index, snapshot) }

    /// The ids, classes and names the subject's ancestors must have (the compounds joined to it
    /// by descendant and child combinators only).
    var ancestorKeys: SelectorKeyFilter {
        var filter = SelectorKeyFilter()
        for (position, combinator) in combinators.enumerated() {
            guard combinator == .descendant || combinator == .child else { break }
            for part in compounds[position + 1].parts {
                switch part {
                case .type(let name) where name != "*": filter.insert(key: "t" + name)
                case .id(let id): filter.insert(key: "#" + id)
                case .className(let name): filter.insert(key: "." + name)
                default: break
                }
            }
        }
        return filter
    }

    private func match(_ position: Int, _ index: Int, _ snapshot: DocumentSnapshot) -> Bool {
        guard compounds[position].matches(index, in: snapshot) else { return false }
        guard position + 1 < compounds.count else { return true }
        switch combinators[position] {
        case .child:
            return snapshot.nodes[index].parent.map { match(position + 1, $0, snapshot) } ?? false
        case .descendant:
            var ancestor = snapshot.nodes[index].parent
            while let current = ancestor {
                if match(position + 1, current, snapshot) { return true }
                ancestor = snapshot.nodes[current].parent
            }
            return false
        case .nextSibling:
            return snapshot.nodes[index].previousSibling.map { match(position + 1, $0, snapshot) } ?? false
        case .subsequentSibling:
            var sibling = snapshot.nodes[index].previousSibling
            while let current = sibling {
                if match(position + 1, current, snapshot) { return true }
                sibling = snapshot.nodes[current].previousSibling
            }
            return false
        }
    }
}

/// Simple selectors that all match one element.
struct CompoundSelector {
    var parts: [SimpleSelector] = []

    var specificity: Int { parts.reduce(0) { $0 + $1.specificity } }

    func matches(_ index: Int, in snapshot: DocumentSnapshot) -> Bool {
        for part in parts where !part.matches(index, in: snapshot) { return false }
        return true
    }
}

/// The states of a document nobody has touched that attributes decide.
enum StaticState: Equatable {
    case link, checked, disabled, enabled, required, optional, readOnly, readWrite, placeholderShown, defined
}

enum SimpleSelector {
    enum AttributeOperator { case exists, equals, includes, dashMatch, prefix, suffix, substring }
    enum NthKind { case child, lastChild, ofType, lastOfType }

    case type(String)
    case id(String)
    case className(String)
    case attribute(name: String, operator: AttributeOperator, value: String, ignoreCase: Bool)
    case not([ComplexSelector])
    /// `:is()` (and `:where()`, which adds no specificity).
    case matchesAny([ComplexSelector], countsSpecificity: Bool)
    /// `:has()`: relative selectors, each starting with the combinator from the anchor.
    case has([(ComplexSelector.Combinator, ComplexSelector)])
    case nth(NthKind, a: Int, b: Int, of: [ComplexSelector]?)
    case root, empty
    case lang(String)
    case state(StaticState)
    /// Dynamic pseudo-classes and states a page without a user never has.
    case never

    static let idWeight = 1_000_000, classWeight = 1_000, typeWeight = 1

    var specificity: Int {
        switch self {
        case .type(let name): name == "*" ? 0 : Self.typeWeight
        case .id: Self.idWeight
        case .className, .attribute, .root, .empty, .lang, .state, .never: Self.classWeight
        case .not(let list): list.map(\.specificity).max() ?? 0
        case .matchesAny(let list, let counts): counts ? list.map(\.specificity).max() ?? 0 : 0
        case .has(let list): list.map(\.1.specificity).max() ?? 0
        case .nth(_, _, _, let of): Self.classWeight + (of?.map(\.specificity).max() ?? 0)
        }
    }

    func matches(_ index: Int, in snapshot: DocumentSnapshot) -> Bool {
        switch self {
        case .type(let name): return name == "*" || snapshot.nodes[index].name == name
        case .id(let id): return snapshot.nodes[index].id == id
        case .className(let name): return snapshot.nodes[index].classes.contains(name)
        case .attribute(let name, let op, let value, let ignoreCase):
            guard let actual = snapshot.nodes[index].attributes[name] else { return false }
            return Self.attributeMatches(actual, op, value, ignoreCase: ignoreCase)
        case .not(let list): return !list.contains { $0.pseudoElement == nil && $0.matches(index, in: snapshot) }
        case .matchesAny(let list, _): return list.contains { $0.pseudoElement == nil && $0.matches(index, in: snapshot) }
        case .has(let list): return list.contains { Self.has($0.0, $0.1, anchor: index, snapshot) }
        case .nth(let kind, let a, let b, let of): return Self.nth(kind, a, b, of, index, snapshot)
        case .root: return snapshot.nodes[index].parent == nil
        case .empty: return snapshot.nodes[index].isEmpty
        case .lang(let wanted): return Self.lang(of: index, snapshot).map { $0 == wanted || $0.hasPrefix(wanted + "-") } ?? false
        case .state(let state): return Self.state(state, snapshot.nodes[index])
        case .never: return false
        }
    }

    private static func attributeMatches(_ actual: String, _ op: AttributeOperator, _ value: String, ignoreCase: Bool) -> Bool {
        let actual = ignoreCase ? actual.lowercased() : actual
        let value = ignoreCase ? value.lowercased() : value
        switch op {
        case .exists: return true
        case .equals: return actual == value
        case .includes: return !value.isEmpty && actual.split(whereSeparator: { $0.isWhitespace }).contains { $0 == value }
        case .dashMatch: return actual == value || actual.hasPrefix(value + "-")
        case .prefix: return !value.isEmpty && actual.hasPrefix(value)
        case .suffix: return !value.isEmpty && actual.hasSuffix(value)
        case .substring: return !value.isEmpty && actual.contains(value)
        }
    }

    private static func nth(_ kind: NthKind, _ a: Int, _ b: Int, _ of: [ComplexSelector]?, _ index: Int, _ snapshot: DocumentSnapshot) -> Bool {
        let node = snapshot.nodes[index]
        var position: Int
        switch kind {
        case .child: position = node.childIndex
        case .lastChild: position = node.childCount - node.childIndex + 1
        case .ofType: position = node.typeIndex
        case .lastOfType: position = node.typeCount - node.typeIndex + 1
        }
        if let of {
            let list = SelectorList(selectors: of)
            guard list.matches(index, in: snapshot) else { return false }
            let backwards = kind == .lastChild
            var count = 1
            var sibling = backwards ? node.nextSibling : node.previousSibling
            while let current = sibling {
                if list.matches(current, in: snapshot) { count += 1 }
                sibling = backwards ? snapshot.nodes[current].nextSibling : snapshot.nodes[current].previousSibling
            }
            position = count
        }
        // position = a*n + b for some n >= 0.
        if a == 0 { return position == b }
        let difference = position - b
        return difference % a == 0 && difference / a >= 0
    }

    private static func has(_ combinator: ComplexSelector.Combinator, _ selector: ComplexSelector, anchor: Int, _ snapshot: DocumentSnapshot) -> Bool {
        let node = snapshot.nodes[anchor]
        func matchesFrom(_ candidate: Int) -> Bool { selector.matches(candidate, in: snapshot) }
        switch combinator {
        case .child:
            return snapshot.children(of: anchor).contains(where: matchesFrom)
        case .descendant:
            var stack = snapshot.children(of: anchor)
            while let current = stack.popLast() {
                // A selector of several compounds may reach above the anchor here (`:has(.a .b)`
                // with `.a` outside it): rare in real sheets, and it errs on the side of loading.
                if matchesFrom(current) { return true }
                stack += snapshot.children(of: current)
            }
            return false
        case .nextSibling:
            return node.nextSibling.map(matchesFrom) ?? false
        case .subsequentSibling:
            var sibling = node.nextSibling
            while let current = sibling {
                if matchesFrom(current) { return true }
                sibling = snapshot.nodes[current].nextSibling
            }
            return false
        }
    }

    private static func lang(of index: Int, _ snapshot: DocumentSnapshot) -> String? {
        var cursor: Int? = index
        while let current = cursor {
            if let lang = snapshot.nodes[current].attributes["lang"] ?? snapshot.nodes[current].attributes["xml:lang"] { return lang.lowercased() }
            cursor = snapshot.nodes[current].parent
        }
        return nil
    }

    private static let formControls: Set<String> = ["input", "button", "select", "textarea", "optgroup", "option", "fieldset"]
    private static let textInputs: Set<String> = ["", "text", "search", "url", "tel", "email", "password", "number", "date", "month", "week", "time", "datetime-local"]

    private static func state(_ state: StaticState, _ node: DocumentSnapshot.Node) -> Bool {
        let editable = node.name == "textarea" || (node.name == "input" && textInputs.contains(node.attributes["type"]?.lowercased() ?? ""))
        switch state {
        case .link: return ["a", "area"].contains(node.name) && node.attributes["href"] != nil
        case .checked:
            return (node.name == "input" && node.attributes["checked"] != nil) || (node.name == "option" && node.attributes["selected"] != nil)
        case .disabled: return formControls.contains(node.name) && node.attributes["disabled"] != nil
        case .enabled: return formControls.contains(node.name) && node.attributes["disabled"] == nil
        case .required: return ["input", "select", "textarea"].contains(node.name) && node.attributes["required"] != nil
        case .optional: return ["input", "select", "textarea"].contains(node.name) && node.attributes["required"] == nil
        case .readWrite: return editable && node.attributes["readonly"] == nil && node.attributes["disabled"] == nil
        case .readOnly: return !(editable && node.attributes["readonly"] == nil && node.attributes["disabled"] == nil)
        case .placeholderShown: return editable && node.attributes["placeholder"] != nil && (node.attributes["value"] ?? "").isEmpty
        case .defined: return true
        }
    }
}
