internal import CLibXML2

extension HTMLElement {
    /// The element as HTML, as a browser's `outerHTML` gives it.
    public var outerHTML: String {
        var serializer = HTMLSerializer()
        serializer.append(self)
        return serializer.output
    }
}

extension HTMLDocument {
    /// The document as Chromium's `--dump-dom` prints it: the doctype, a line break, then the
    /// root element's `outerHTML`.
    public var domDump: String {
        var result = ""
        if let dtd = doc.pointee.intSubset {
            result += "<!DOCTYPE " + (dtd.pointee.name.map { String(cString: $0).lowercased() } ?? "html")
            if let publicID = dtd.pointee.ExternalID { result += " PUBLIC \"" + String(cString: publicID) + "\"" }
            if let systemID = dtd.pointee.SystemID {
                result += (dtd.pointee.ExternalID == nil ? " SYSTEM" : "") + " \"" + String(cString: systemID) + "\""
            }
            result += ">\n"
        }
        return result + (root?.outerHTML ?? "")
    }
}
