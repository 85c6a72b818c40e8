import Foundation
import RelayFetch
import HTMLDOM

/// The preload scanner: feeds HTML chunks to a push parser on a serial queue and reports the
/// subresources of the elements each chunk added. The parser only ever appends to the tree, so
/// the scan resumes after the last element it saw: the whole page costs one walk, not one per
/// chunk. A `<style>` element is scanned once an element follows it (its text is complete);
/// the page loader's final pass over the whole document covers anything left.
// @unchecked: every var is read and written on `queue` only (`feed` and `settle` enqueue onto it),
// where `found` is called too; the lets are set in init.
final class StreamingScanner: @unchecked Sendable {
    private let queue = DispatchQueue(label: "relayfetch.preload-scanner")
    private var parser: HTMLStreamParser?
    private var document: HTMLDocument?
    private var scanner: SubresourceScanner?
    private var cursor: HTMLElement?
    private var pendingStyles: [HTMLElement] = []
    private var url: URL?
    private var stopped = false
    private let found: ([SubresourceReference], URL, ReferrerPolicy?) -> Bool
    private let mode: ScanMode

    /// `found` receives each chunk's new references with the document URL and the policy of
    /// the document's referrer meta so far; it returns false to stop scanning (a limit was hit).
    init(mode: ScanMode = .complete, found: @escaping ([SubresourceReference], URL, ReferrerPolicy?) -> Bool) {
        self.mode = mode
        self.found = found
    }

    /// Called with each body chunk of the final response (after redirects) and its URL, on
    /// libcurl's thread; the work happens on the scanner's queue.
    func feed(_ chunk: Data, from source: URL) {
        queue.async { [self] in
            if url != source {  // the first chunk (a retried exchange starts afresh)
                url = source
                parser = HTMLStreamParser(url: source, charset: nil)
                document = nil
                scanner = SubresourceScanner(documentURL: source, mode: mode)
                cursor = nil
                pendingStyles = []
                stopped = false
            }
            guard let parser, !stopped else { return }
            parser.feed(chunk)
            if document == nil { document = parser.partialDocument() }
            scanAdded()
        }
    }

    /// Waits until every chunk fed so far has been scanned.
    func settle() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    private func scanAdded() {
        guard let document, var scanner, let url else { return }
        var references: [SubresourceReference] = []
        var next = cursor.map { document.element(after: $0) } ?? document.root
        // Styles whose element is now followed by another are complete.
        if next != nil, !pendingStyles.isEmpty {
            for style in pendingStyles { _ = scanner.scan(style) { references.append($0); return true } }
            pendingStyles.removeAll()
        }
        while let element = next {
            let following = document.element(after: element)
            if element.name == "style" && following == nil {
                pendingStyles.append(element)
            } else {
                _ = scanner.scan(element) { references.append($0); return true }
            }
            cursor = element
            next = following
        }
        self.scanner = scanner
        if !references.isEmpty, !found(references, url, scanner.policy) { stopped = true }
    }
}
