package import CLibXML2

/// HTML's fragment serialization algorithm (HTML § 13.3) over a libxml2 tree: what a browser's
/// `outerHTML` gives. Attribute values are always double-quoted, void elements get no end tag,
/// text is escaped except inside raw-text elements (script, style, ...), whose text is copied.
package struct HTMLSerializer {
    /// Elements that have no end tag and never children.
    static let voidElements: Set<String> = [
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input", "keygen",
        "link", "meta", "param", "source", "track", "wbr",
    ]

    /// Elements whose text children are serialized as they are. `noscript` is not one: without
    /// scripting (as here) its content is markup, parsed and escaped like any other.
    static let rawTextElements: Set<String> = ["style", "script", "xmp", "iframe", "noembed", "noframes", "plaintext"]

    private(set) var output = ""

    /// Appends `element`, its attributes and everything below it.
    mutating func append(_ element: HTMLElement) {
        element.walk(enter: { node in enter(node) }, exit: { node in exit(node) })
    }

    private mutating func enter(_ node: xmlNodePtr) -> Bool {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            let name = Self.name(of: node)
            output += "<" + name
            var attribute = node.pointee.properties
            while let current = attribute {
                output += " " + (current.pointee.name.map { String(cString: $0) } ?? "") + "=\""
                output += Self.escaped(Self.value(of: current), inAttribute: true) + "\""
                attribute = current.pointee.next
            }
            output += ">"
            return !Self.voidElements.contains(name)
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            let text = node.pointee.content.map { String(cString: $0) } ?? ""
            let raw = node.pointee.parent.map { Self.rawTextElements.contains(Self.name(of: $0)) } ?? false
            output += raw ? text : Self.escaped(text, inAttribute: false)
        case XML_COMMENT_NODE:
            output += "<!--" + (node.pointee.content.map { String(cString: $0) } ?? "") + "-->"
        case XML_PI_NODE:
            // An HTML parser reads `<?...>` as a bogus comment; libxml2 keeps a processing instruction.
            let content = node.pointee.content.map { " " + String(cString: $0) } ?? ""
            output += "<!--?" + Self.name(of: node) + content + "-->"
        default:
            break
        }
        return false
    }

    private mutating func exit(_ node: xmlNodePtr) {
        guard node.pointee.type == XML_ELEMENT_NODE else { return }
        output += "</" + Self.name(of: node) + ">"
    }

    package static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// An attribute's value with character references decoded (`""` for a bare attribute).
    private static func value(of attribute: xmlAttrPtr) -> String {
        guard let value = xmlNodeListGetString(attribute.pointee.doc, attribute.pointee.children, 1) else { return "" }
        defer { rf_xmlFree(value) }
        return String(cString: value)
    }

    /// HTML's "escaping a string": `&`, no-break space, `<` and `>` (in attribute values too, as
    /// current Chromium escapes them there), and `"` in attribute values.
    static func escaped(_ text: String, inAttribute: Bool) -> String {
        guard text.contains(where: { "&\u{A0}\"<>".contains($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "\u{A0}": result += "&nbsp;"
            case "\"" where inAttribute: result += "&quot;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
