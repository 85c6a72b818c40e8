internal import CLibXML2

/// libxml2 parses HTML as HTML 4 did; browsers' HTML5 parser builds a different tree in a few
/// ways that selectors, text and serialization see. After a parse these repairs give the
/// finished tree the browser's shape in those ways:
/// - an HTML5 void element libxml2 does not know (`embed`, `source`, `track`, `wbr`, ...) would
///   hold what follows it until its parent closes: those children move out, right after it;
/// - a line break right after `<pre>`, `<listing>` or `<textarea>` goes, as HTML5 drops it;
/// - rows directly in a `<table>` go into an implied `<tbody>`, as the HTML5 parser inserts one;
/// - `<html>` always has a `<head>` and, unless it is a frameset, a `<body>`;
/// - whitespace before `<head>` goes (HTML5 ignores it); text after `</body>`, and `epilog` (the
///   whitespace after `</html>`, which libxml2 drops), goes at the end of the body.
/// Not repaired: a start tag after such a void element that should close its parent (`<li>a<wbr>b
/// <li>c` nests the second item: libxml2 never closes an element it does not know), misnested
/// formatting tags (HTML5's adoption agency), text left in an element still open at `</body>` (it
/// lands at the end of the body, not in that element), and libxml2's implied `<p>` around text
/// directly in `<html>`.
enum HTMLTreeRepair {
    static func repair(_ doc: xmlDocPtr, epilog: String) {
        guard let root = xmlDocGetRootElement(doc) else { return }
        var voids: [xmlNodePtr] = []
        var tables: [xmlNodePtr] = []
        var preformatted: [xmlNodePtr] = []
        HTMLElement.walk(from: root, enter: { node in
            guard node.pointee.type == XML_ELEMENT_NODE else { return false }
            let name = HTMLSerializer.name(of: node)
            if HTMLSerializer.voidElements.contains(name), node.pointee.children != nil { voids.append(node) }
            if name == "table" { tables.append(node) }
            if name == "pre" || name == "listing" || name == "textarea" { preformatted.append(node) }
            return true
        }, exit: { _ in })
        voids.forEach(hoistChildren)
        preformatted.forEach(dropLeadingLineBreak)
        tables.forEach { wrapRows(of: $0, in: doc) }
        if HTMLSerializer.name(of: root) == "html" { completeDocument(root, in: doc, epilog: epilog) }
    }

    /// Moves `element`'s children, in order, to right after it.
    private static func hoistChildren(of element: xmlNodePtr) {
        while let child = element.pointee.last {
            xmlUnlinkNode(child)
            xmlAddNextSibling(element, child)
        }
    }

    private static func dropLeadingLineBreak(of element: xmlNodePtr) {
        guard let text = element.pointee.children, text.pointee.type == XML_TEXT_NODE, let content = text.pointee.content,
              content.pointee == 0x0A else { return }
        let rest = String(cString: content + 1)  // copied first: libxml2 frees the old content before it copies the new
        xmlNodeSetContent(text, rest)
    }

    /// Each run of `tr` children of `table` (with the text and comments between them) into a new
    /// `tbody`; a section element (`thead`, `tbody`, `tfoot`, `caption`, `colgroup`) ends a run.
    private static func wrapRows(of table: xmlNodePtr, in doc: xmlDocPtr) {
        var body: xmlNodePtr?
        var cursor = table.pointee.children
        while let child = cursor {
            cursor = child.pointee.next
            let isElement = child.pointee.type == XML_ELEMENT_NODE
            if isElement, HTMLSerializer.name(of: child) != "tr" {
                body = nil
                continue
            }
            if body == nil {
                guard isElement, let created = xmlNewDocNode(doc, nil, "tbody", nil) else { continue }
                xmlAddPrevSibling(child, created)
                body = created
            }
            guard let body else { continue }
            xmlUnlinkNode(child)
            xmlAddChild(body, child)
        }
    }

    /// `head` and `body` where HTML5 always has them, and the text around them where it puts it.
    private static func completeDocument(_ html: xmlNodePtr, in doc: xmlDocPtr, epilog: String) {
        var children: [xmlNodePtr] = []
        var cursor = html.pointee.children
        while let child = cursor {
            children.append(child)
            cursor = child.pointee.next
        }
        // Asks the tree as it is now: the loop below frees whitespace nodes that `children` held.
        func named(_ name: String) -> xmlNodePtr? {
            var cursor = html.pointee.children
            while let node = cursor {
                if node.pointee.type == XML_ELEMENT_NODE && HTMLSerializer.name(of: node) == name { return node }
                cursor = node.pointee.next
            }
            return nil
        }
        let head = named("head")
        for child in children {
            if child.pointee.type == XML_ELEMENT_NODE { break }
            if child.pointee.type == XML_TEXT_NODE, isWhitespace(child) {
                xmlUnlinkNode(child)
                xmlFreeNode(child)
            }
        }
        if head == nil, let created = xmlNewDocNode(doc, nil, "head", nil) {
            if let first = firstNonComment(html) { xmlAddPrevSibling(first, created) } else { xmlAddChild(html, created) }
        }
        guard named("frameset") == nil else { return }
        var body = named("body")
        if body == nil { body = xmlAddChild(html, xmlNewDocNode(doc, nil, "body", nil)) }
        guard let body else { return }
        var trailing = body.pointee.next
        while let node = trailing {
            trailing = node.pointee.next
            guard node.pointee.type == XML_TEXT_NODE else { continue }
            xmlUnlinkNode(node)
            xmlAddChild(body, node)  // merged into a text node already there, as HTML5 appends text
        }
        if !epilog.isEmpty { xmlAddChild(body, xmlNewDocText(doc, epilog)) }
    }

    private static func firstNonComment(_ parent: xmlNodePtr) -> xmlNodePtr? {
        var cursor = parent.pointee.children
        while let node = cursor, node.pointee.type == XML_COMMENT_NODE { cursor = node.pointee.next }
        return cursor
    }

    private static func isWhitespace(_ text: xmlNodePtr) -> Bool {
        guard let content = text.pointee.content else { return true }
        return String(cString: content).utf8.allSatisfy { [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains($0) }
    }
}
