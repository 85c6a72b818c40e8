import Foundation
internal import CLibXML2
import HTMLDOM

extension HTMLElement {
    /// The element's readable text, roughly as a browser's `innerText` gives it with the default
    /// style sheet: block boxes (paragraphs, headings, list items, table rows, ...) on lines of
    /// their own, a blank line around paragraphs, `<br>` as a line break, table cells separated
    /// by tabs, runs of whitespace collapsed to one space except in `<pre>` and `<textarea>`.
    /// What is not rendered is left out: head matter, `<script>`, `<style>`, `<template>`,
    /// `hidden` elements and elements whose inline style says `display: none`. Author style
    /// sheets are not applied (their `display` values are not known here).
    /// An element that is not rendered itself (a `<title>`, or inside a hidden one) gives its
    /// text content instead, as `innerText` does.
    public var innerText: String {
        guard !([self] + ancestors).contains(where: RenderedText.isHidden) else { return text }
        var text = RenderedText()
        walk(enter: { text.enter($0, in: document) }, exit: { text.exit($0) })
        return text.result
    }
}

/// Builds `innerText` from a walk over the tree: the rendered-text collection steps of HTML's
/// `innerText`, with `display` from element names instead of computed styles.
struct RenderedText {
    /// Elements the default style sheet makes blocks (or list items, tables, captions).
    static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "frameset", "h1", "h2", "h3", "h4",
        "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "listing", "main", "menu", "nav", "ol", "optgroup",
        "option", "p", "plaintext", "pre", "search", "section", "summary", "table", "ul", "xmp",
    ]
    /// Elements whose whitespace is kept as written.
    static let preformatted: Set<String> = ["pre", "listing", "plaintext", "xmp", "textarea"]

    private enum Piece {
        /// Text whose whitespace runs collapse.
        case collapsible(String)
        /// Text kept as it is (`<br>`, tabs between cells, preformatted text).
        case literal(String)
        /// A block edge: at least this many line breaks here, unless at the very start or end.
        case breaks(Int)
    }

    private var pieces: [Piece] = []
    private var preformattedDepth = 0

    mutating func enter(_ node: xmlNodePtr, in document: HTMLDocument) -> Bool {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            let content = node.pointee.content.map { String(cString: $0) } ?? ""
            pieces.append(preformattedDepth > 0 ? .literal(content) : .collapsible(content))
            return false
        case XML_ELEMENT_NODE:
            let element = HTMLElement(node: node, document: document)
            let name = element.name
            guard !Self.isHidden(element) else { return false }
            if name == "br" { pieces.append(.literal("\n")) }
            if let count = Self.breaks(name) { pieces.append(.breaks(count)) }
            if Self.preformatted.contains(name) { preformattedDepth += 1 }
            return true
        default:
            return false
        }
    }

    mutating func exit(_ node: xmlNodePtr) {
        let name = HTMLSerializer.name(of: node).lowercased()
        if Self.preformatted.contains(name) { preformattedDepth -= 1 }
        if let count = Self.breaks(name) { pieces.append(.breaks(count)) }
        if name == "td" || name == "th", Self.nextElement(after: node, named: ["td", "th"]) != nil { pieces.append(.literal("\t")) }
        if name == "tr", Self.isFollowedByRow(node) { pieces.append(.literal("\n")) }
    }

    /// The pieces joined: collapsed spaces never start or end a line, and consecutive block
    /// edges give the largest of their line break counts.
    var result: String {
        var output = ""
        var pendingBreaks = 0
        var pendingSpace = false
        var atLineStart = true
        func emit(_ text: String) {
            if pendingBreaks > 0, !output.isEmpty {
                output += String(repeating: "\n", count: pendingBreaks)
                atLineStart = true
                pendingSpace = false
            }
            pendingBreaks = 0
            if pendingSpace, !atLineStart { output += " " }
            pendingSpace = false
            output += text
            atLineStart = text.hasSuffix("\n")
        }
        for piece in pieces {
            switch piece {
            case .breaks(let count):
                pendingBreaks = max(pendingBreaks, count)
                pendingSpace = false
            case .literal(let text):
                emit(text)
            case .collapsible(let text):
                let words = text.split(whereSeparator: Self.isCollapsibleWhitespace)
                if text.first.map(Self.isCollapsibleWhitespace) == true { pendingSpace = true }
                for (index, word) in words.enumerated() {
                    if index > 0 { pendingSpace = true }
                    emit(String(word))
                }
                if text.last.map(Self.isCollapsibleWhitespace) == true { pendingSpace = true }
            }
        }
        return output
    }

    private static func isCollapsibleWhitespace(_ character: Character) -> Bool {
        character == " " || character == "\n" || character == "\t" || character == "\r\n" || character == "\r" || character == "\u{0C}"
    }

    private static func breaks(_ name: String) -> Int? {
        name == "p" ? 2 : blocks.contains(name) ? 1 : nil
    }

    static func isHidden(_ element: HTMLElement) -> Bool {
        if UserAgentStyle.hides(element.name, attribute: element.attribute) { return true }
        guard let style = element.attribute("style"), style.range(of: "display", options: .caseInsensitive) != nil else { return false }
        let display = StyleSheet.declarations(Array(style.utf8)[...]).last { $0.name == "display" }
        return display?.value.lowercased() == "none"
    }

    private static func nextElement(after node: xmlNodePtr, named names: Set<String>) -> xmlNodePtr? {
        var cursor = node.pointee.next
        while let current = cursor {
            if current.pointee.type == XML_ELEMENT_NODE, names.contains(HTMLSerializer.name(of: current).lowercased()) { return current }
            cursor = current.pointee.next
        }
        return nil
    }

    /// Whether another row of the same table follows: in this row group or a later one.
    private static func isFollowedByRow(_ row: xmlNodePtr) -> Bool {
        if nextElement(after: row, named: ["tr"]) != nil { return true }
        guard let group = row.pointee.parent, ["thead", "tbody", "tfoot"].contains(HTMLSerializer.name(of: group).lowercased()) else { return false }
        var cursor = nextElement(after: group, named: ["thead", "tbody", "tfoot"])
        while let section = cursor {
            if let first = section.pointee.children,
               (first.pointee.type == XML_ELEMENT_NODE && HTMLSerializer.name(of: first).lowercased() == "tr")
                || nextElement(after: first, named: ["tr"]) != nil { return true }
            cursor = nextElement(after: section, named: ["thead", "tbody", "tfoot"])
        }
        return false
    }
}
