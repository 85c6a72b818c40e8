/// The simple CSS selectors `HTMLDocument.select` understands: compound selectors of a tag,
/// `#id`, `.class`, `[attr]` and `[attr=value]`, joined by descendant combinators (spaces).
struct CSSSelector {
    struct Compound {
        var tag: String?
        var id: String?
        var classes: [String] = []
        var attributes: [(name: String, value: String?)] = []

        func matches(_ element: HTMLElement) -> Bool {
            if let tag, tag != "*", element.name != tag { return false }
            if let id, element.attribute("id") != id { return false }
            if !classes.isEmpty {
                let have = Set((element.attribute("class") ?? "").split(whereSeparator: { $0.isWhitespace }).map(String.init))
                if !classes.allSatisfy(have.contains) { return false }
            }
            for (name, value) in attributes {
                guard let actual = element.attribute(name) else { return false }
                if let value, actual != value { return false }
            }
            return true
        }
    }

    let parts: [Compound]

    init?(_ text: String) {
        var parts: [Compound] = []
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            guard let compound = Self.compound(String(token)) else { return nil }
            parts.append(compound)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
    }

    func matches(_ element: HTMLElement) -> Bool {
        guard parts.last!.matches(element) else { return false }
        var remaining = parts.dropLast()
        var ancestor = element.parent
        while let wanted = remaining.last {
            guard let current = ancestor else { return false }
            if wanted.matches(current) { remaining = remaining.dropLast() }
            ancestor = current.parent
        }
        return true
    }

    private static func compound(_ token: String) -> Compound? {
        var compound = Compound()
        var index = token.startIndex
        func name() -> String {
            let start = index
            while index < token.endIndex, !"#.[".contains(token[index]) { index = token.index(after: index) }
            return String(token[start..<index])
        }
        if index < token.endIndex, !"#.[".contains(token[index]) { compound.tag = name().lowercased() }
        while index < token.endIndex {
            let mark = token[index]
            index = token.index(after: index)
            switch mark {
            case "#": compound.id = name()
            case ".": compound.classes.append(name())
            case "[":
                guard let close = token[index...].firstIndex(of: "]") else { return nil }
                let body = token[index..<close]
                index = token.index(after: close)
                if let equals = body.firstIndex(of: "=") {
                    var value = String(body[body.index(after: equals)...])
                    if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                        value = String(value.dropFirst().dropLast())
                    }
                    compound.attributes.append((String(body[..<equals]).lowercased(), value))
                } else {
                    compound.attributes.append((String(body).lowercased(), nil))
                }
            default: return nil
            }
        }
        return compound
    }
}
