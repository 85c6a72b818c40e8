import Foundation
import RelayFetch

/// Loads subresources concurrently within the overall and per-origin limits, as they are
/// submitted (while the HTML still streams in, and as style sheets and frames are scanned).
/// Each URL is loaded once per page.
final class SubresourceScheduler: @unchecked Sendable {
    typealias Job = (reference: SubresourceReference, referrer: URL, depth: Int)

    private let loader: PageLoader
    private let pageURL: URL
    private let deadline: Date
    private let progress: (@Sendable (PageProgress) -> Void)?
    private let limits: ConcurrencyLimits
    private let lock = NSLock()
    private var seen: Set<URL> = []
    private var finished: [PageResource] = []
    private var discovered = 0
    private var bytes = 0
    private var active = 0
    private var closed = false
    private var idle: CheckedContinuation<Void, Never>?

    init(loader: PageLoader, pageURL: URL, deadline: Date, progress: (@Sendable (PageProgress) -> Void)?) {
        self.loader = loader
        self.pageURL = pageURL
        self.deadline = deadline
        self.progress = progress
        limits = ConcurrencyLimits(total: loader.options.maximumConcurrentRequests,
                                   perOrigin: loader.options.maximumConcurrentRequestsPerOrigin)
    }

    func markSeen(_ url: URL) { lock.withLock { _ = seen.insert(url) } }

    /// Starts loading the jobs whose URLs were not seen before. Thread-safe.
    func submit(_ jobs: [Job]) {
        let fresh: [Job] = lock.withLock {
            let new = jobs.filter { seen.insert($0.reference.url).inserted }
            discovered += new.count
            active += new.count
            return new
        }
        for job in fresh {
            Task { [self] in
                await limits.acquire(job.reference.url)
                let more = await load(job)
                await limits.release(job.reference.url)
                submit(more)
                jobDone()
            }
        }
    }

    /// Waits until everything submitted (and everything it led to) has loaded; no more
    /// submissions are expected. Returns the resources in the order they finished.
    func finish() async -> [PageResource] {
        await withCheckedContinuation { continuation in
            let done: Bool = lock.withLock {
                closed = true
                if active == 0 { return true }
                idle = continuation
                return false
            }
            if done { continuation.resume() }
        }
        return lock.withLock { finished }
    }

    private func jobDone() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            active -= 1
            guard active == 0, closed, let waiter = idle else { return nil }
            idle = nil
            return waiter
        }
        waiter?.resume()
    }

    private func load(_ job: Job) async -> [Job] {
        var resource = PageResource(url: job.reference.url, kind: job.reference.kind, referrer: job.referrer, startedAt: Date())
        var next: [Job] = []
        var request = HTTPRequest(url: job.reference.url, headerFields: [("Referer", job.referrer.absoluteString)])
        request.siteForCookies = pageURL
        request.timeout = min(loader.options.resourceTimeout, deadline.timeIntervalSinceNow)
        do {
            guard request.timeout! > 0 else { throw FetchError(.timedOut(loader.options.pageTimeout)) }
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
