import Foundation
internal import CLibXML2

/// libxml2's HTML push parser, fed as bytes arrive. Between chunks the partial document can be
/// scanned, so subresource requests start while the HTML is still arriving, like a browser's
/// preload scanner. Not thread-safe: feed it from one thread (or serial queue) at a time.
package final class HTMLStreamParser {
    private var ctxt: htmlParserCtxtPtr?
    private var pendingBOMCheck = true
    private var headerCharset: String?
    /// The last bytes fed, for the whitespace after `</html>` that libxml2 drops (see `finish`).
    private var tail = Data()

    /// libxml2 asks threaded programs to call `xmlInitParser` once before any thread parses (its
    /// lazy set-up on a first parse is not meant to race); a static is initialized exactly once.
    /// Before any thread parses, too, libxml2's generic error output is dropped on every thread:
    /// it would print a hostile page's failed conversions to stderr.
    private static let libraryInitialized: Void = {
        xmlInitParser()
        rf_xml_drop_generic_errors()
    }()

    package init(url: URL, charset: String?) {
        _ = Self.libraryInitialized
        headerCharset = charset
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue
                            // A page without a doctype has none, as in browsers (libxml2 would add HTML 4.0's).
                            | HTML_PARSE_NODEFDTD.rawValue)
        ctxt = htmlCreatePushParserCtxt(nil, nil, nil, 0, url.absoluteString, XML_CHAR_ENCODING_NONE)
        if let ctxt {
            htmlCtxtUseOptions(ctxt, options)
            rf_html_ctxt_keep_bare_attributes_empty(ctxt)
        }
    }

    deinit {
        if let ctxt {
            if let doc = rf_html_ctxt_take_doc(ctxt) { xmlFreeDoc(doc) }
            htmlFreeParserCtxt(ctxt)
        }
    }

    package func feed(_ input: Data) {
        guard let ctxt, !input.isEmpty else { return }
        tail = (tail + input.suffix(Self.tailLength)).suffix(Self.tailLength)
        var data = input
        if pendingBOMCheck {
            pendingBOMCheck = false
            var charset = headerCharset
            // As in browsers, a byte-order mark wins over the header and <meta>.
            for (bom, name) in [([0xEF, 0xBB, 0xBF], "UTF-8"), ([0xFE, 0xFF], "UTF-16BE"), ([0xFF, 0xFE], "UTF-16LE")] as [([UInt8], String)]
            where data.starts(with: bom) {
                data = data.dropFirst(bom.count)
                charset = name
                break
            }
            if let charset, let handler = xmlFindCharEncodingHandler(charset) { xmlSwitchToEncoding(ctxt, handler) }
        }
        let chunk = 64 * 1024
        data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: CChar.self).baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let count = min(chunk, raw.count - offset)
                htmlParseChunk(ctxt, base + offset, Int32(count), 0)
                offset += count
            }
        }
    }

    /// The document as parsed so far, valid until the next `feed` or `finish`.
    package func partialDocument() -> HTMLDocument? {
        guard let ctxt, let doc = rf_html_ctxt_doc(ctxt) else { return nil }
        return HTMLDocument(borrowing: doc)
    }

    /// Ends the parse and hands over the document, repaired to the shape browsers give it
    /// (`HTMLTreeRepair`).
    func finish() -> HTMLDocument? {
        guard let ctxt else { return nil }
        htmlParseChunk(ctxt, nil, 0, 1)
        let doc = rf_html_ctxt_take_doc(ctxt)
        htmlFreeParserCtxt(ctxt)
        self.ctxt = nil
        guard let doc else { return nil }
        HTMLTreeRepair.repair(doc, epilog: Self.whitespaceAfterEndTag(in: tail))
        return HTMLDocument(taking: doc)
    }

    private static let tailLength = 64

    /// The whitespace after a final `</html>` (line breaks normalized as HTML's input stream
    /// does), which an HTML5 parser adds to the body; empty when the input ends otherwise.
    static func whitespaceAfterEndTag(in tail: Data) -> String {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0C, 0x0D]
        var end = tail.endIndex
        while end > tail.startIndex, whitespace.contains(tail[end - 1]) { end -= 1 }
        let endTag = Array("</html>".utf8)
        guard end - tail.startIndex >= endTag.count,
              tail[(end - endTag.count)..<end].map({ $0 | 0x20 }) == endTag.map({ $0 | 0x20 }) else { return "" }
        return String(decoding: tail[end...], as: UTF8.self)
            .replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
