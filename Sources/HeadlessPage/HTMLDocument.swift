import Foundation
internal import CLibXML2

/// A parsed HTML document (libxml2), queryable with XPath and simple CSS selectors. Parsing uses
/// libxml2's push parser, fed chunk by chunk; it recovers from broken markup as browsers do.
public final class HTMLDocument: @unchecked Sendable {
    let doc: xmlDocPtr

    /// Parses `data` as HTML. As in browsers, a byte-order mark wins, then `charset` (from the
    /// Content-Type header), then a `<meta charset>` in the document (libxml2 detects it).
    public init?(data input: Data, url: URL, charset headerCharset: String? = nil) {
        var data = input
        var charset = headerCharset
        for (bom, name) in [([0xEF, 0xBB, 0xBF], "UTF-8"), ([0xFE, 0xFF], "UTF-16BE"), ([0xFF, 0xFE], "UTF-16LE")] as [([UInt8], String)]
        where data.starts(with: bom) {
            data = data.dropFirst(bom.count)
            charset = name
            break
        }
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        guard let ctxt = htmlCreatePushParserCtxt(nil, nil, nil, 0, url.absoluteString, XML_CHAR_ENCODING_NONE) else { return nil }
        defer { htmlFreeParserCtxt(ctxt) }
        htmlCtxtUseOptions(ctxt, options)
        if let charset, let handler = xmlFindCharEncodingHandler(charset) {
            xmlSwitchToEncoding(ctxt, handler)
        }
        let chunk = 64 * 1024
        data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: CChar.self).baseAddress
            var offset = 0
            while offset < raw.count {
                let count = min(chunk, raw.count - offset)
                htmlParseChunk(ctxt, base! + offset, Int32(count), 0)
                offset += count
            }
        }
        htmlParseChunk(ctxt, nil, 0, 1)
        guard let doc = rf_html_ctxt_take_doc(ctxt) else { return nil }
        self.doc = doc
    }

    deinit { xmlFreeDoc(doc) }

    /// The root element.
    public var root: HTMLElement? { xmlDocGetRootElement(doc).map { HTMLElement(node: $0, document: self) } }

    /// Every element in document order.
    public var elements: [HTMLElement] {
        var result: [HTMLElement] = []
        func walk(_ node: xmlNodePtr?) {
            var cursor = node
            while let current = cursor {
                if current.pointee.type == XML_ELEMENT_NODE { result.append(HTMLElement(node: current, document: self)) }
                walk(current.pointee.children)
                cursor = current.pointee.next
            }
        }
        walk(xmlDocGetRootElement(doc))
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

    /// Elements matching a simple CSS selector: tag, #id, .class, [attr], [attr=value], and
    /// descendant combinations of those (e.g. `div.main a[href]`).
    public func select(_ selector: String) -> [HTMLElement] {
        guard let parsed = CSSSelector(selector) else { return [] }
        return elements.filter { parsed.matches($0) }
    }

    /// The title text, if any.
    public var title: String? { xpath("//title").first?.text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// One element of an `HTMLDocument`; valid while the document lives (it keeps it alive).
public struct HTMLElement: @unchecked Sendable {
    let node: xmlNodePtr
    let document: HTMLDocument

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
