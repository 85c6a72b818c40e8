import Foundation
internal import CLibXML2

/// libxml2's HTML push parser, fed as bytes arrive. Between chunks the partial document can be
/// scanned, so subresource requests start while the HTML is still arriving, like a browser's
/// preload scanner. Not thread-safe: feed it from one thread (or serial queue) at a time.
final class HTMLStreamParser {
    private var ctxt: htmlParserCtxtPtr?
    private var pendingBOMCheck = true
    private var headerCharset: String?

    /// libxml2 asks threaded programs to call `xmlInitParser` once before any thread parses (its
    /// lazy set-up on a first parse is not meant to race); a static is initialized exactly once.
    /// Before any thread parses, too, libxml2's generic error output is dropped on every thread:
    /// it would print a hostile page's failed conversions to stderr.
    private static let libraryInitialized: Void = {
        xmlInitParser()
        rf_xml_drop_generic_errors()
    }()

    init(url: URL, charset: String?) {
        _ = Self.libraryInitialized
        headerCharset = charset
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        ctxt = htmlCreatePushParserCtxt(nil, nil, nil, 0, url.absoluteString, XML_CHAR_ENCODING_NONE)
        if let ctxt { htmlCtxtUseOptions(ctxt, options) }
    }

    deinit {
        if let ctxt {
            if let doc = rf_html_ctxt_take_doc(ctxt) { xmlFreeDoc(doc) }
            htmlFreeParserCtxt(ctxt)
        }
    }

    func feed(_ input: Data) {
        guard let ctxt, !input.isEmpty else { return }
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
    func partialDocument() -> HTMLDocument? {
        guard let ctxt, let doc = rf_html_ctxt_doc(ctxt) else { return nil }
        return HTMLDocument(borrowing: doc)
    }

    /// Ends the parse and hands over the document.
    func finish() -> HTMLDocument? {
        guard let ctxt else { return nil }
        htmlParseChunk(ctxt, nil, 0, 1)
        let doc = rf_html_ctxt_take_doc(ctxt)
        htmlFreeParserCtxt(ctxt)
        self.ctxt = nil
        return doc.map { HTMLDocument(taking: $0) }
    }
}
