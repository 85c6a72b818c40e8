import Foundation
import HTMLDOM

/// The cascade of a document's style sheets, as far as loading needs it: which images the
/// computed styles of rendered boxes name (backgrounds, borders, masks, list markers, cursors,
/// generated content), and which font faces their text needs. A box is rendered unless it or an
/// ancestor computes to `display: none`; `::before`/`::after` boxes exist when their `content`
/// is not `none`/`normal`. Declarations are ordered as CSS Cascade 4 orders them (importance,
/// inline style, specificity, order); `var()` is substituted; inherited properties inherit.
package struct StyleResolver {
    /// A sheet in cascade order and the URL its relative URLs resolve against.
    package struct Sheet {
        let sheet: StyleSheet
        let base: URL
    }

    /// A URL the styles need and the URL of the sheet (or document) that named it.
    package struct Need: Equatable {
        package let url: URL
        package let base: URL
    }

    /// What the document's styles load, each URL once, in discovery order.
    package struct Needs {
        package var images: [Need] = []
        package var fonts: [Need] = []
    }

    private struct Entry {
        let selector: ComplexSelector
        let declarations: [StyleSheet.Declaration]
        let base: URL
        let specificity: Int
        let order: Int
        let ancestors: SelectorKeyFilter
    }

    private var entries: [Entry] = []
    private var byID: [String: [Int]] = [:]
    private var byClass: [String: [Int]] = [:]
    private var byType: [String: [Int]] = [:]
    private var universal: [Int] = []
    private var fonts = FontFaceSet()
    private let viewport: Viewport

    package init(sheets: [Sheet], viewport: Viewport) {
        self.viewport = viewport
        for sheet in sheets {
            for face in sheet.sheet.fontFaces { fonts.add(face, base: sheet.base) }
            for rule in sheet.sheet.rules {
                for selector in rule.selectors.selectors {
                    let index = entries.count
                    entries.append(Entry(selector: selector, declarations: rule.declarations, base: sheet.base,
                                         specificity: selector.specificity, order: index, ancestors: selector.ancestorKeys))
                    bucket(index, selector.compounds[0])
                }
            }
        }
    }

    /// Files each entry under the most selective part of its subject compound.
    private mutating func bucket(_ index: Int, _ subject: CompoundSelector) {
        for part in subject.parts { if case .id(let id) = part { byID[id, default: []].append(index); return } }
        for part in subject.parts { if case .className(let name) = part { byClass[name, default: []].append(index); return } }
        for part in subject.parts { if case .type(let name) = part, name != "*" { byType[name, default: []].append(index); return } }
        universal.append(index)
    }

    /// The images and fonts the rendered document needs, at most `limit` images (a page can
    /// load no more than its subresource limit, and a value may name millions).
    package func needs(of document: HTMLDocument, baseURL: URL, limit: Int = .max) -> Needs {
        let snapshot = DocumentSnapshot(document)
        var computed: [ComputedStyle?] = Array(repeating: nil, count: snapshot.nodes.count)
        var collector = NeedsCollector(fonts: fonts, ratio: viewport.devicePixelRatio, limit: limit)
        let familyCache = FamilyCache()
        for index in snapshot.nodes.indices {
            let node = snapshot.nodes[index]
            let parent: ComputedStyle
            if let parentIndex = node.parent {
                guard let style = computed[parentIndex] else { continue }  // inside display: none
                parent = style
            } else {
                parent = ComputedStyle.initial
            }
            var matched: [ComplexSelector.PseudoElement?: [(key: [Int], declaration: StyleSheet.Declaration, base: URL)]] = [:]
            for entryIndex in candidates(for: node) {
                let pseudo = entries[entryIndex].selector.pseudoElement
                guard pseudo != .other, pseudo != .marker, snapshot.ancestorFilters[index].mayContain(entries[entryIndex].ancestors),
                      entries[entryIndex].selector.matches(index, in: snapshot) else { continue }
                let entry = entries[entryIndex]
                for declaration in entry.declarations {
                    matched[pseudo, default: []].append(([declaration.important ? 1 : 0, 0, entry.specificity, entry.order], declaration, entry.base))
                }
            }
            if let style = node.attributes["style"] {
                for declaration in StyleSheet.declarations(Array(style.utf8)[...]) {
                    matched[nil, default: []].append(([declaration.important ? 1 : 0, 1, 0, entries.count], declaration, baseURL))
                }
            }
            var style = ComputedStyle(parent: parent, userAgent: UserAgentStyle.declarations(for: node),
                                      author: Self.ordered(matched[nil]), familyCache: familyCache)
            guard !style.isDisplayNone else { continue }
            collector.addBox(style, base: baseURL, text: UserAgentStyle.text(of: node, style: style, snapshot: snapshot, index: index))
            for pseudo in [ComplexSelector.PseudoElement.before, .after] {
                guard let declarations = matched[pseudo] else { continue }
                let box = ComputedStyle(parent: style, userAgent: [], author: Self.ordered(declarations), familyCache: familyCache)
                guard let content = box.generatedContent, !box.isDisplayNone else { continue }
                collector.addBox(box, base: baseURL, text: content.text(attributes: node.attributes))
            }
            if let declarations = matched[.firstText], !node.ownText.allSatisfy(\.isWhitespace) {
                let box = ComputedStyle(parent: style, userAgent: [], author: Self.ordered(declarations), familyCache: familyCache)
                collector.addBox(box, base: baseURL, text: node.ownText)
            }
            style.dropNonInherited()
            computed[index] = style
        }
        return collector.needs
    }

    /// The entries whose subject may match, each once (an element with two classes of one rule's
    /// subject finds it in both buckets).
    private func candidates(for node: DocumentSnapshot.Node) -> [Int] {
        var result = universal
        if let id = node.id, let found = byID[id] { result += found }
        for name in node.classes { if let found = byClass[name] { result += found } }
        if let found = byType[node.name] { result += found }
        guard node.classes.count > 1 else { return result }
        var seen = Set<Int>()
        return result.filter { seen.insert($0).inserted }
    }

    private static func ordered(_ matched: [(key: [Int], declaration: StyleSheet.Declaration, base: URL)]?) -> [(StyleSheet.Declaration, URL)] {
        (matched ?? []).sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.declaration, $0.base) }
    }
}

/// Gathers the URLs boxes need, each once, and the text each font request renders.
private struct NeedsCollector {
    let fonts: FontFaceSet
    let ratio: Double
    let limit: Int
    private var images: [StyleResolver.Need] = []
    private var seenImages: Set<URL> = []
    private var textByRequest: [FontFaceSet.Request: Set<UInt32>] = [:]
    private var requestOrder: [FontFaceSet.Request] = []

    init(fonts: FontFaceSet, ratio: Double, limit: Int) {
        self.fonts = fonts
        self.ratio = ratio
        self.limit = limit
    }

    mutating func addBox(_ style: ComputedStyle, base: URL, text: String) {
        for (value, valueBase) in style.imageValues {
            for raw in CSSValue.imageURLs(value, devicePixelRatio: ratio) where images.count < limit {
                guard let url = SubresourceURL.resolve(raw, against: valueBase ?? base), seenImages.insert(url).inserted else { continue }
                images.append(StyleResolver.Need(url: url, base: valueBase ?? base))
            }
        }
        let scalars = text.unicodeScalars.filter { !$0.properties.isWhitespace }
        guard !scalars.isEmpty else { return }
        let request = FontFaceSet.Request(families: style.families, weight: style.weight, style: style.fontStyle)
        if textByRequest[request] == nil { requestOrder.append(request) }
        var set = textByRequest[request, default: []]
        if set.count < 4096 { set.formUnion(scalars.prefix(4096).map(\.value)) }
        textByRequest[request] = set
    }

    var needs: StyleResolver.Needs {
        var seen: Set<URL> = []
        var fontsNeeded: [StyleResolver.Need] = []
        for request in requestOrder {
            for need in fonts.urls(for: request, text: textByRequest[request] ?? []) where seen.insert(need.url).inserted { fontsNeeded.append(need) }
        }
        return StyleResolver.Needs(images: images, fonts: fontsNeeded)
    }
}
