import Foundation
internal import CLibXML2

extension HTMLElement {
    /// Sets (or adds) an attribute.
    package func setAttribute(_ name: String, _ value: String) {
        xmlSetProp(node, name, value)
    }

    /// Replaces the element's children with text (for `<style>` blocks).
    package func setText(_ text: String) {
        xmlNodeSetContent(node, text)
    }

    /// Removes the element from its document.
    package func remove() {
        xmlUnlinkNode(node)
        xmlFreeNode(node)
    }
}

extension HTMLDocument {
    /// The document serialized as HTML.
    package func serialized() -> Data {
        var memory: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        htmlDocDumpMemory(doc, &memory, &size)
        guard let memory else { return Data() }
        defer { rf_xmlFree(memory) }
        return Data(bytes: memory, count: Int(size))
    }
}
