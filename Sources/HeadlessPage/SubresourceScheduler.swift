import Foundation
import RelayFetch

/// Loads subresources concurrently within the overall and per-origin limits; style sheets and
/// frames it loads are scanned in turn. Each URL is loaded once per page.
final class SubresourceScheduler: @unchecked Sendable {
    typealias Job = (reference: SubresourceReference, referrer: URL, depth: Int)

    private let loader: PageLoader
    private let pageURL: URL
    private let progress: (@Sendable (PageProgress) -> Void)?
    private let lock = NSLock()
    private var seen: Set<URL> = []
    private var finished: [PageResource] = []
    private var discovered = 0
    private var bytes = 0

    init(loader: PageLoader, pageURL: URL, progress: (@Sendable (PageProgress) -> Void)?) {
        self.loader = loader
        self.pageURL = pageURL
        self.progress = progress
    }

    func markSeen(_ url: URL) { lock.withLock { _ = seen.insert(url) } }

    /// Loads `initial` and whatever they lead to; returns the resources in the order they finished.
    func run(initial: [Job]) async -> [PageResource] {
        let limits = ConcurrencyLimits(total: loader.options.maximumConcurrentRequests,
                                       perOrigin: loader.options.maximumConcurrentRequestsPerOrigin)
        await withTaskGroup(of: [Job].self) { group in
            var pending = fresh(initial)
            while true {
                while let job = pending.first {
                    pending.removeFirst()
                    group.addTask { [self] in
                        await limits.acquire(job.reference.url)
                        defer { Task { await limits.release(job.reference.url) } }
                        return await load(job)
                    }
                }
                guard let more = await group.next() else { break }
                pending += fresh(more)
            }
        }
        return lock.withLock { finished }
    }

    /// The jobs whose URLs were not loaded (or queued) before.
    private func fresh(_ jobs: [Job]) -> [Job] {
        lock.withLock {
            let new = jobs.filter { seen.insert($0.reference.url).inserted }
            discovered += new.count
            return new
        }
    }

    private func load(_ job: Job) async -> [Job] {
        var resource = PageResource(url: job.reference.url, kind: job.reference.kind, referrer: job.referrer, startedAt: Date())
        var next: [Job] = []
        var request = HTTPRequest(url: job.reference.url, headerFields: [("Referer", job.referrer.absoluteString)])
        request.siteForCookies = pageURL
        do {
            let (body, response) = try await loader.session.data(for: request)
            resource.record(response: response, body: body, request: request, keepBody: loader.options.keepBodies)
            next = followUps(of: job, body: body, response: response)
        } catch {
            resource.error = "\(error)"
            resource.duration = Date().timeIntervalSince(resource.startedAt)
        }
        let snapshot: PageProgress = lock.withLock {
            finished.append(resource)
            bytes += resource.size
            return PageProgress(done: finished.count, total: discovered, bytes: bytes)
        }
        progress?(snapshot)
        return next
    }

    /// What a loaded style sheet or frame needs in turn.
    private func followUps(of job: Job, body: Data, response: HTTPResponse) -> [Job] {
        guard (200..<300).contains(response.statusCode) else { return [] }
        let type = ContentType(response).mimeType ?? ""
        if job.reference.kind == .stylesheet || type == "text/css" {
            let css = String(decoding: body, as: UTF8.self)
            return CSSURLScanner.references(in: css).compactMap { reference in
                SubresourceScanner.resolve(reference.url, against: response.url).map {
                    (SubresourceReference(url: $0, kind: reference.isImport ? .stylesheet : Self.kind(ofCSSReference: $0)), response.url, job.depth)
                }
            }
        }
        if job.reference.kind == .frame, job.depth < loader.options.frameDepth, type.contains("html"),
           let document = try? loader.parse(body, response: response) {
            return SubresourceScanner.references(in: document, baseURL: response.url).map { ($0, response.url, job.depth + 1) }
        }
        return []
    }

    private static func kind(ofCSSReference url: URL) -> SubresourceKind {
        ["woff", "woff2", "ttf", "otf", "eot"].contains(url.pathExtension.lowercased()) ? .font : .image
    }
}

/// Counting semaphores: one overall, one per origin.
actor ConcurrencyLimits {
    private let total: Int
    private let perOrigin: Int
    private var running = 0
    private var runningByOrigin: [String: Int] = [:]
    private var waiting: [(origin: String, continuation: CheckedContinuation<Void, Never>)] = []

    init(total: Int, perOrigin: Int) {
        self.total = max(1, total)
        self.perOrigin = max(1, perOrigin)
    }

    func acquire(_ url: URL) async {
        let origin = Self.origin(url)
        if canRun(origin) {
            take(origin)
            return
        }
        await withCheckedContinuation { waiting.append((origin, $0)) }
    }

    func release(_ url: URL) {
        let origin = Self.origin(url)
        running -= 1
        runningByOrigin[origin, default: 1] -= 1
        if let index = waiting.firstIndex(where: { canRun($0.origin) }) {
            let next = waiting.remove(at: index)
            take(next.origin)
            next.continuation.resume()
        }
    }

    private func canRun(_ origin: String) -> Bool { running < total && runningByOrigin[origin, default: 0] < perOrigin }
    private func take(_ origin: String) {
        running += 1
        runningByOrigin[origin, default: 0] += 1
    }

    private static func origin(_ url: URL) -> String { "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? -1)" }
}
