package import CLibXML2

extension HTMLDocument {
    /// The element after `element` in document order (its first child element, else the next
    /// element after it or an ancestor), without recursion however deep the tree; nil when the
    /// document has none (yet: a parse in progress only appends, so a later call may find one).
    package func element(after element: HTMLElement) -> HTMLElement? {
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
    package func forEachElement(_ body: (HTMLElement) -> Bool) {
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

extension HTMLElement {
    /// Visits this element and every node below it (text, comments too) in document order
    /// without recursion, since a hostile page may nest deeply. `enter` sees each node and says
    /// whether to go into its children; `exit` follows the children of each node entered so.
    package func walk(enter: (xmlNodePtr) -> Bool, exit: (xmlNodePtr) -> Void) {
        Self.walk(from: node, enter: enter, exit: exit)
    }

    /// `walk(enter:exit:)` from any node.
    static func walk(from start: xmlNodePtr, enter: (xmlNodePtr) -> Bool, exit: (xmlNodePtr) -> Void) {
        var current = start
        while true {
            let descends = enter(current)
            // Only elements' children are nodes of the tree (an entity reference's point at its declaration).
            if descends, current.pointee.type == XML_ELEMENT_NODE, let child = current.pointee.children {
                current = child
                continue
            }
            if descends { exit(current) }
            var finished = current
            while true {
                if finished == start { return }
                if let next = finished.pointee.next {
                    current = next
                    break
                }
                guard let parent = finished.pointee.parent else { return }
                exit(parent)
                finished = parent
            }
        }
    }
}
