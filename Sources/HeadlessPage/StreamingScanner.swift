import Foundation

/// The preload scanner: feeds HTML chunks to a push parser on a serial queue and reports the
/// subresources found in the partial document after each chunk. The page URL is the base until a
/// `<base href>` appears (the scanner honours it from then on).
final class StreamingScanner: @unchecked Sendable {
    private let queue = DispatchQueue(label: "relayfetch.preload-scanner")
    private var parser: HTMLStreamParser?
    private var url: URL?
    private let found: ([SubresourceScheduler.Job]) -> Void

    init(found: @escaping ([SubresourceScheduler.Job]) -> Void) {
        self.found = found
    }

    /// Called with each body chunk of the final response (after redirects) and its URL, on
    /// libcurl's thread; the work happens on the scanner's queue.
    func feed(_ chunk: Data, from source: URL) {
        queue.async { [self] in
            if url != source {  // the first chunk (a retried exchange starts afresh)
                url = source
                parser = HTMLStreamParser(url: source, charset: nil)
            }
            guard let parser, let url else { return }
            parser.feed(chunk)
            guard let partial = parser.partialDocument() else { return }
            let references = SubresourceScanner.references(in: partial, baseURL: url)
            if !references.isEmpty { found(references.map { ($0, url, 0) }) }
        }
    }

    /// Waits until every chunk fed so far has been scanned.
    func settle() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
