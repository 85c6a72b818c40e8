internal import CLibXML2

extension HTMLDocument {
    /// The element after `element` in document order (its first child element, else the next
    /// element after it or an ancestor), without recursion however deep the tree; nil when the
    /// document has none (yet: a parse in progress only appends, so a later call may find one).
    func element(after element: HTMLElement) -> HTMLElement? {
        if let child = Self.firstElement(from: element.node.pointee.children) { return HTMLElement(node: child, document: self) }
        var current: xmlNodePtr? = element.node
        while let node = current {
            if let sibling = Self.firstElement(from: node.pointee.next) { return HTMLElement(node: sibling, document: self) }
            guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
            current = parent
        }
        return nil
    }

    /// Calls `body` with each element in document order until it returns false.
    func forEachElement(_ body: (HTMLElement) -> Bool) {
        var next = root
        while let element = next, body(element) { next = self.element(after: element) }
    }

    /// `node` or its first following sibling that is an element.
    private static func firstElement(from node: xmlNodePtr?) -> xmlNodePtr? {
        var cursor = node
        while let current = cursor, current.pointee.type != XML_ELEMENT_NODE { cursor = current.pointee.next }
        return cursor
    }
}
