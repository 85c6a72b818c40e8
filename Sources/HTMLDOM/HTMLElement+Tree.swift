import Foundation
internal import CLibXML2

extension HTMLElement {
    /// The child elements, in order.
    public var children: [HTMLElement] {
        var result: [HTMLElement] = []
        var cursor = node.pointee.children
        while let current = cursor {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(HTMLElement(node: current, document: document)) }
            cursor = current.pointee.next
        }
        return result
    }

    /// Every element below this one, in tree order.
    public var descendants: [HTMLElement] {
        children.flatMap { [$0] + $0.descendants }
    }

    /// Every attribute, in source order, values entity-decoded.
    public var attributes: [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var cursor = node.pointee.properties
        while let attribute = cursor {
            let name = attribute.pointee.name.map { String(cString: $0) } ?? ""
            result.append((name, self.attribute(name) ?? ""))
            cursor = attribute.pointee.next
        }
        return result
    }

    /// The text with runs of ASCII whitespace collapsed to one space and the ends trimmed (how a
    /// label's or option's text is compared).
    public var normalizedText: String { text.collapsingWhitespace }

    /// True when `other` is this same element.
    package func isSame(as other: HTMLElement) -> Bool { node == other.node }

    /// A key for this element, stable while its document lives.
    package var identity: UnsafeMutableRawPointer { UnsafeMutableRawPointer(node) }

    /// Ancestors, nearest first.
    package var ancestors: [HTMLElement] {
        var result: [HTMLElement] = []
        var cursor = parent
        while let current = cursor {
            result.append(current)
            cursor = current.parent
        }
        return result
    }
}

extension String {
    /// Runs of ASCII whitespace collapsed to one space, ends trimmed.
    var collapsingWhitespace: String {
        split(whereSeparator: { $0.unicodeScalars.allSatisfy(Self.asciiWhitespace.contains) }).joined(separator: " ")
    }

    private static let asciiWhitespace: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{0C}"]
}
