import Foundation
internal import CLibXML2

/// A read-only copy of a document's elements made for selector matching and the cascade:
/// names, ids, classes, attributes, tree links, sibling positions and each element's own text,
/// in plain Swift values. Matching thousands of rules against thousands of elements reads these
/// many times; reading them from libxml2 each time would allocate a string per attribute read.
package struct DocumentSnapshot {
    package struct Node {
        package let name: String
        package let id: String?
        package let classes: [String]
        /// Attribute names are lower case (libxml2's HTML parser lowers them).
        package let attributes: [String: String]
        package let parent: Int?
        package var previousSibling: Int?
        package var nextSibling: Int?
        /// 1-based positions among the parent's element children, and among those of the same name.
        package var childIndex = 1, childCount = 1, typeIndex = 1, typeCount = 1
        package var lastChild: Int?
        /// The element's own text (its text children, not its descendants').
        package var ownText = ""
        /// No element children and no text (comments aside): `:empty`.
        package var isEmpty = true
    }

    package private(set) var nodes: [Node] = []
    /// Per node, the names, ids and classes of its ancestors, as a Bloom filter: a selector
    /// whose descendant chain needs a class no ancestor has is rejected without walking the tree.
    package private(set) var ancestorFilters: [SelectorKeyFilter] = []
    /// The elements, parallel to `nodes`.
    package private(set) var elements: [HTMLElement] = []

    package init(_ document: HTMLDocument) {
        guard let root = xmlDocGetRootElement(document.doc) else { return }
        append(root, parent: nil, document: document)
    }

    /// Walks the tree in document order without recursion (a hostile page may nest deeply).
    private mutating func append(_ root: xmlNodePtr, parent: Int?, document: HTMLDocument) {
        var stack: [(node: xmlNodePtr, parent: Int?)] = [(root, parent)]
        while let (node, parentIndex) = stack.popLast() {
            let index = nodes.count
            let built = Self.node(node, parent: parentIndex)
            nodes.append(built)
            var filter = SelectorKeyFilter()
            if let parentIndex {
                filter = ancestorFilters[parentIndex]
                filter.insert(node: nodes[parentIndex])
            }
            ancestorFilters.append(filter)
            elements.append(HTMLElement(node: node, document: document))
            var children: [xmlNodePtr] = []
            var text = ""
            var empty = true
            var cursor = node.pointee.children
            while let child = cursor {
                switch child.pointee.type {
                case XML_ELEMENT_NODE: children.append(child); empty = false
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = child.pointee.content {
                        let piece = String(cString: content)
                        if !piece.isEmpty { empty = false }
                        if text.utf8.count < 4096 { text += piece }
                    }
                default: break
                }
                cursor = child.pointee.next
            }
            nodes[index].ownText = text
            nodes[index].isEmpty = empty
            stack.append(contentsOf: children.reversed().map { ($0, index) })
        }
        linkSiblings()
    }

    private static func node(_ node: xmlNodePtr, parent: Int?) -> Node {
        var attributes: [String: String] = [:]
        var cursor = node.pointee.properties
        while let attribute = cursor {
            if let rawName = attribute.pointee.name {
                let name = String(cString: rawName).lowercased()
                var value = ""
                if let text = xmlNodeListGetString(node.pointee.doc, attribute.pointee.children, 1) {
                    value = String(cString: text)
                    rf_xmlFree(text)
                }
                if attributes[name] == nil { attributes[name] = value }
            }
            cursor = attribute.pointee.next
        }
        let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
        let classes = (attributes["class"] ?? "").split(whereSeparator: { $0.isWhitespace }).map(String.init)
        return Node(name: name, id: attributes["id"], classes: classes, attributes: attributes, parent: parent)
    }

    /// Sibling links and positions, from each parent's children in order.
    private mutating func linkSiblings() {
        var childrenOf: [Int: [Int]] = [:]
        for index in nodes.indices { if let parent = nodes[index].parent { childrenOf[parent, default: []].append(index) } }
        for (parent, children) in childrenOf {
            nodes[parent].lastChild = children.last
            var typeCounts: [String: Int] = [:]
            for (position, child) in children.enumerated() {
                nodes[child].childIndex = position + 1
                nodes[child].childCount = children.count
                nodes[child].previousSibling = position > 0 ? children[position - 1] : nil
                nodes[child].nextSibling = position + 1 < children.count ? children[position + 1] : nil
                typeCounts[nodes[child].name, default: 0] += 1
                nodes[child].typeIndex = typeCounts[nodes[child].name]!
            }
            for child in children { nodes[child].typeCount = typeCounts[nodes[child].name]! }
        }
    }

    /// The element children of `index`, in order.
    package func children(of index: Int) -> [Int] {
        guard let last = nodes[index].lastChild else { return [] }
        var result = [last]
        while let previous = nodes[result[result.count - 1]].previousSibling { result.append(previous) }
        return result.reversed()
    }
}

/// A 256-bit Bloom filter over selector keys (`tag`, `#id`, `.class`).
package struct SelectorKeyFilter: Equatable {
    private var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    package init() {}

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.bits == rhs.bits }

    package mutating func insert(node: DocumentSnapshot.Node) {
        insert(key: "t" + node.name)
        if let id = node.id { insert(key: "#" + id) }
        for name in node.classes { insert(key: "." + name) }
    }

    package mutating func insert(key: String) {
        var hash: UInt64 = 0xcbf29ce484222325  // FNV-1a: stable across runs, unlike Hasher
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        for probe in [hash & 255, (hash >> 8) & 255] {
            let bit = UInt64(1) << (probe & 63)
            switch probe >> 6 {
            case 0: bits.0 |= bit
            case 1: bits.1 |= bit
            case 2: bits.2 |= bit
            default: bits.3 |= bit
            }
        }
    }

    /// True when every key of `other` may be in this filter.
    package func mayContain(_ other: SelectorKeyFilter) -> Bool {
        bits.0 & other.bits.0 == other.bits.0 && bits.1 & other.bits.1 == other.bits.1
            && bits.2 & other.bits.2 == other.bits.2 && bits.3 & other.bits.3 == other.bits.3
    }
}
