import Foundation
package import CLibXML2

/// A parsed HTML document (libxml2), queryable with XPath and simple CSS selectors. Parsing uses
/// libxml2's push parser, fed chunk by chunk; it recovers from broken markup as browsers do.
// @unchecked: wraps a libxml2 tree, which no lock guards. A shared document is only read (libxml2
// reads change nothing; each query makes its own XPath context); the editing calls and `release()`
// are made by its one owner before anyone else sees it (`OfflineCopy` edits a copy it parsed itself).
public final class HTMLDocument: @unchecked Sendable {
    let doc: xmlDocPtr

    private let ownsDocument: Bool

    /// Parses `data` as HTML. As in browsers, a byte-order mark wins, then `charset` (from the
    /// Content-Type header), then a `<meta charset>` in the document (libxml2 detects it).
    public convenience init?(data: Data, url: URL, charset: String? = nil) {
        let parser = HTMLStreamParser(url: url, charset: charset)
        parser.feed(data)
        guard let document = parser.finish() else { return nil }
        self.init(taking: document.doc)
        document.release()
    }

    init(taking doc: xmlDocPtr) {
        self.doc = doc
        ownsDocument = true
    }

    /// A view of a document another owner frees (a parse still in progress).
    init(borrowing doc: xmlDocPtr) {
        self.doc = doc
        ownsDocument = false
    }

    private var released = false
    /// Gives up ownership (the document moved to another `HTMLDocument`).
    func release() { released = true }

    deinit { if ownsDocument && !released { xmlFreeDoc(doc) } }

    /// The root element.
    public var root: HTMLElement? { xmlDocGetRootElement(doc).map { HTMLElement(node: $0, document: self) } }

    /// Every element in document order.
    public var elements: [HTMLElement] {
        var result: [HTMLElement] = []
        forEachElement { result.append($0); return true }
        return result
    }

    /// Elements matching an XPath expression (empty for invalid expressions).
    public func xpath(_ expression: String) -> [HTMLElement] {
        guard let context = xmlXPathNewContext(doc) else { return [] }
        defer { xmlXPathFreeContext(context) }
        guard let object = xmlXPathEvalExpression(expression, context) else { return [] }
        defer { xmlXPathFreeObject(object) }
        guard let set = object.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else { return [] }
        return (0..<Int(set.pointee.nodeNr)).compactMap { table[$0] }.map { HTMLElement(node: $0, document: self) }
    }

    /// The `<body>` element (as the DOM's `document.body`: a child of the root), if any.
    public var body: HTMLElement? { root?.children.first { $0.name == "body" } }

    /// The title text, if any.
    public var title: String? { xpath("//title").first?.text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// One element of an `HTMLDocument`; valid while the document lives (it keeps it alive).
// @unchecked: a node of its document's libxml2 tree, shared under the document's rule (above).
public struct HTMLElement: @unchecked Sendable {
    let node: xmlNodePtr
    package let document: HTMLDocument

    package init(node: xmlNodePtr, document: HTMLDocument) {
        self.node = node
        self.document = document
    }

    /// Lower-case tag name.
    public var name: String { node.pointee.name.map { String(cString: $0).lowercased() } ?? "" }

    /// An attribute's value, entities decoded; nil when absent.
    public func attribute(_ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { rf_xmlFree(value) }
        return String(cString: value)
    }

    /// The text content of the element and its descendants.
    public var text: String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { rf_xmlFree(content) }
        return String(cString: content)
    }

    public var parent: HTMLElement? {
        guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
        return HTMLElement(node: parent, document: document)
    }
}
