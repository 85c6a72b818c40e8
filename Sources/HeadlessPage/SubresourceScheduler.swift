import Foundation
import HTTPCore
import RelayFetch
import Locking
import HTMLDOM
import CSSStyle

/// One subresource to load: what, for which document (the referrer and its policy), and how
/// deep in frames and `@import` chains it was found.
struct SubresourceJob: Sendable {
    let reference: SubresourceReference
    let referrer: URL
    let policy: ReferrerPolicy
    var frameDepth = 0
    var importDepth = 0
}

/// Loads subresources concurrently within the overall and per-origin limits, as they are
/// submitted (while the HTML still streams in, and as style sheets and frames are scanned).
/// Each URL is loaded once per page; the page's limits (subresources, bytes, `@import` and
/// frame depth) bound the work, and the ones reached are reported.
final class SubresourceScheduler: Sendable {
    private let loader: PageLoader
    private let pageURL: URL
    private let deadline: Date
    private let progress: (@Sendable (PageProgress) -> Void)?
    private let limits: ConcurrencyLimits
    private let state = Locked(State())

    /// What the loads in flight share, behind one lock.
    private struct State {
        var seen: Set<URL> = []
        var finished: [PageResource] = []
        var discovered = 0
        var bytes = 0
        /// Style sheet bytes scanned and parsed so far (`maximumStyleBytes`).
        var styleBytes = 0
        var active = 0
        /// Style sheets and frames in flight: what a document's styles wait for.
        var activeStyleInputs = 0
        var closed = false
        /// What the waiter in `idle` waits for: only the style inputs, or everything.
        var idleWantsStylesOnly = false
        var reached: [PageLimit] = []
        var idle: CheckedContinuation<Void, Never>?
        /// Browser mode: fetched style sheets by requested URL, and documents whose styles still
        /// have to be applied (the page, then its frames) once every sheet they need has loaded.
        var sheets: [URL: DocumentStyleSheets.Loaded] = [:]
        var unstyled: [StyledDocument] = []

        /// Records a limit reached.
        mutating func note(_ limit: PageLimit) {
            if !reached.contains(limit) { reached.append(limit) }
        }
    }

    private struct StyledDocument {
        let document: HTMLDocument
        let baseURL: URL
        let referrer: URL
        let policy: ReferrerPolicy
        let viewport: Viewport
        let frameDepth: Int
    }

    /// The page's bytes, shared by the page's own request and every subresource.
    let budget: ByteBudget

    init(loader: PageLoader, pageURL: URL, deadline: Date, budget: ByteBudget, progress: (@Sendable (PageProgress) -> Void)?) {
        self.loader = loader
        self.budget = budget
        self.pageURL = pageURL
        self.deadline = deadline
        self.progress = progress
        limits = ConcurrencyLimits(total: loader.options.maximumConcurrentRequests,
                                   perOrigin: loader.options.maximumConcurrentRequestsPerOrigin)
    }

    func markSeen(_ url: URL) { state.withLock { _ = $0.seen.insert(url) } }

    /// The limits reached so far, each once.
    var limitsReached: [PageLimit] { state.withLock { $0.reached } }

    /// Starts loading the jobs whose URLs were not seen before, as far as the page's limits
    /// allow. Thread-safe. Returns false once a limit stops further submissions.
    @discardableResult
    func submit(_ jobs: [SubresourceJob]) -> Bool {
        let options = loader.options
        let (fresh, open): ([SubresourceJob], Bool) = state.withLock { state in
            var new: [SubresourceJob] = []
            for job in jobs where !state.seen.contains(job.reference.url) {
                if state.discovered >= options.maximumSubresources {
                    state.note(.subresources(options.maximumSubresources))
                    break
                }
                if budget.used >= budget.limit || budget.isExhausted {
                    state.note(.bytes(options.maximumPageBytes))
                    break
                }
                state.seen.insert(job.reference.url)
                new.append(job)
                state.discovered += 1
            }
            state.active += new.count
            state.activeStyleInputs += new.filter { Self.isStyleInput($0) }.count
            return (new, state.discovered < options.maximumSubresources && !budget.isExhausted)
        }
        for job in fresh {
            Task { [self] in
                await limits.acquire(job.reference.url)
                let more = await load(job)
                await limits.release(job.reference.url)
                submit(more)
                jobDone(job)
            }
        }
        return open
    }

    private func note(_ limit: PageLimit) { state.withLock { $0.note(limit) } }

    /// Browser mode: applies the document's style sheets once they have loaded (in `finish`).
    func addStyledDocument(_ document: HTMLDocument, baseURL: URL, referrer: URL, policy: ReferrerPolicy, viewport: Viewport, frameDepth: Int = 0) {
        state.withLock {
            $0.unstyled.append(StyledDocument(document: document, baseURL: baseURL, referrer: referrer, policy: policy,
                                           viewport: viewport, frameDepth: frameDepth))
        }
    }

    /// Waits until everything submitted (and everything it led to) has loaded; no more
    /// submissions are expected. In browser mode, each document's styles are then applied and
    /// the images and fonts they need loaded in turn. Returns the resources in the order they finished.
    /// Styles are applied as soon as every style sheet and frame has loaded, not after the
    /// images the HTML named, which load meanwhile.
    func finish() async -> [PageResource] {
        while true {
            await waitUntilIdle(stylesOnly: true)
            if submitStyleJobs() { continue }
            await waitUntilIdle(stylesOnly: false)
            if !submitStyleJobs() { break }
        }
        return state.withLock { $0.finished }
    }

    /// Submits what the cascade of each document not yet styled needs; false when there was none.
    private func submitStyleJobs() -> Bool {
        let (documents, loaded) = state.withLock { state -> ([StyledDocument], [URL: DocumentStyleSheets.Loaded]) in
            defer { state.unstyled.removeAll() }
            return (state.unstyled, state.sheets)
        }
        for document in documents { submit(styleJobs(document, loaded: loaded)) }
        return !documents.isEmpty
    }

    private static func isStyleInput(_ job: SubresourceJob) -> Bool { job.reference.kind == .stylesheet || job.reference.kind == .frame }

    /// The images and fonts a document's cascade needs, referred by the sheet that names them.
    private func styleJobs(_ styled: StyledDocument, loaded: [URL: DocumentStyleSheets.Loaded]) -> [SubresourceJob] {
        let media = MediaQuery(viewport: styled.viewport)
        let options = loader.options
        var cascade = DocumentStyleSheets(media: media, loaded: loaded, importDepth: options.importDepth)
        cascade.maximumRules = options.maximumStyleRules
        let (sheets, rulesCut) = cascade.sheets(of: styled.document, baseURL: styled.baseURL)
        if rulesCut { note(.styleRules(options.maximumStyleRules)) }
        // More images than the page may load cannot add more than that.
        let needs = StyleResolver(sheets: sheets, viewport: styled.viewport)
            .needs(of: styled.document, baseURL: styled.baseURL, limit: options.maximumSubresources + 1)
        func job(_ need: StyleResolver.Need, _ kind: SubresourceKind) -> SubresourceJob {
            let fromSheet = need.base != styled.baseURL
            return SubresourceJob(reference: SubresourceReference(url: need.url, kind: kind), referrer: fromSheet ? need.base : styled.referrer,
                                  policy: fromSheet ? loader.options.referrerPolicy : styled.policy, frameDepth: styled.frameDepth)
        }
        return needs.fonts.map { job($0, .font) } + needs.images.map { job($0, .image) }
    }

    private func waitUntilIdle(stylesOnly: Bool) async {
        await withCheckedContinuation { continuation in
            let done: Bool = state.withLock { state in
                state.closed = true
                if (stylesOnly ? state.activeStyleInputs : state.active) == 0 { return true }
                state.idle = continuation
                state.idleWantsStylesOnly = stylesOnly
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func jobDone(_ job: SubresourceJob) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.active -= 1
            if Self.isStyleInput(job) { state.activeStyleInputs -= 1 }
            guard state.closed, (state.idleWantsStylesOnly ? state.activeStyleInputs : state.active) == 0,
                  let waiter = state.idle else { return nil }
            state.idle = nil
            return waiter
        }
        waiter?.resume()
    }

    private func load(_ job: SubresourceJob) async -> [SubresourceJob] {
        let started = Date()
        let exchange: HTTPExchange
        var next: [SubresourceJob] = []
        let policy = job.reference.referrerPolicy ?? job.policy
        var request = HTTPRequest(url: job.reference.url,
                                  headerFields: FetchDestination(job.reference).headerFields(for: job.reference.url, initiator: pageURL))
        if let referer = policy.referer(from: job.referrer, to: job.reference.url) { request.headerFields.append(("Referer", referer)) }
        request.referrer = job.referrer
        request.referrerPolicy = policy
        request.siteForCookies = pageURL
        request.timeout = min(loader.options.resourceTimeout, deadline.timeIntervalSinceNow)
        request.byteBudget = budget
        do {
            guard request.timeout! > 0 else { throw FetchError(.timedOut(loader.options.pageTimeout)) }
            if let directory = loader.options.spoolDirectory, loader.options.keepBodies, !Self.isStyleInput(job) {
                let (body, response, spooled) = try await spooling(request, into: directory)
                var loaded = HTTPExchange.loaded(request, response: response, body: body, startedAt: started, keepBody: spooled == nil)
                if let spooled {
                    loaded.bodySize = spooled.count
                    loaded.body = .spooled(spooled)
                }
                exchange = loaded
                next = followUps(of: job, body: body, response: response)
            } else {
                let (body, response) = try await loader.session.data(for: request)
                exchange = .loaded(request, response: response, body: body, startedAt: started, keepBody: loader.options.keepBodies)
                next = followUps(of: job, body: body, response: response)
            }
        } catch {
            let why: String
            if case .responseTooLarge = (error as? FetchError)?.code, budget.isExhausted {
                note(.bytes(loader.options.maximumPageBytes))
                why = "not loaded: the page reached its limit of \(loader.options.maximumPageBytes) bytes (maximumPageBytes)"
            } else {
                why = "\(error)"
            }
            exchange = .failed(job.reference.url, startedAt: started, error: why)
        }
        let resource = PageResource(kind: job.reference.kind, referrer: job.referrer, exchange: exchange)
        let snapshot: PageProgress = state.withLock { state in
            state.finished.append(resource)
            state.bytes += resource.size
            return PageProgress(done: state.finished.count, total: state.discovered, bytes: state.bytes)
        }
        progress?(snapshot)
        return next
    }

    /// Streams `request`'s body: HTML and CSS (which the page parses) into memory, anything else
    /// into memory up to `spoolThreshold`, then into an unnamed file in `directory` (or on in
    /// memory where the file system has none). The per-resource limit stays the session's
    /// `maximumResponseSize`, and the page's byte budget applies as to buffered bodies.
    private func spooling(_ original: HTTPRequest, into directory: URL) async throws -> (Data, HTTPResponse, SpooledBody?) {
        var request = original
        request.maximumBodySize = request.maximumBodySize ?? loader.session.configuration.maximumResponseSize
        let (stream, response) = try await loader.session.bytes(for: request)
        let type = response.contentType.mediaType ?? ""
        let parsed = type.contains("html") || type == "text/css"
        var memory = Data()
        var spooled: SpooledBody?
        do {
            for try await chunk in stream.chunks {
                if let spooled {
                    try spooled.append(chunk)
                    continue
                }
                memory.append(chunk)
                if !parsed, memory.count > loader.options.spoolThreshold, let file = SpooledBody(in: directory) {
                    try file.append(memory)
                    memory = Data()
                    spooled = file
                }
            }
        } catch {
            stream.cancel()
            throw error
        }
        return (memory, response, spooled)
    }

    /// What a loaded style sheet or frame needs in turn, within the depth limits.
    private func followUps(of job: SubresourceJob, body: Data, response: HTTPResponse) -> [SubresourceJob] {
        guard (200..<300).contains(response.statusCode) else { return [] }
        let type = response.contentType.mediaType ?? ""
        let isStyleSheet = job.reference.kind == .stylesheet || type == "text/css"
        if case .browser = loader.scanMode, isStyleSheet {
            let text = styleText(of: body)
            let sheet = DocumentStyleSheets.Loaded(url: response.url, text: String(decoding: text, as: UTF8.self))
            state.withLock {
                $0.sheets[job.reference.url] = sheet
                $0.sheets[response.url] = sheet
            }
            // Imports load whatever their media list says (Chromium fetches them all); the other
            // URLs wait for the cascade.
            return cssJobs(job, body: text, response: response, importsOnly: true)
        }
        if isStyleSheet {
            return cssJobs(job, body: styleText(of: body), response: response, importsOnly: false)
        }
        if job.reference.kind == .frame, type.contains("html"), let document = try? loader.parse(body, response: response) {
            return frameJobs(job, document: document, response: response)
        }
        return []
    }

    /// The part of a style sheet's body the page scans and parses: what is left of
    /// `maximumStyleBytes` for the page. A sheet cut short notes the limit.
    private func styleText(of body: Data) -> Data {
        let limit = loader.options.maximumStyleBytes
        let allowed: Int = state.withLock { state in
            let allowed = min(body.count, max(0, limit - state.styleBytes))
            state.styleBytes += allowed
            if allowed < body.count { state.note(.styleBytes(limit)) }
            return allowed
        }
        return allowed == body.count ? body : body.prefix(allowed)
    }

    private func cssJobs(_ job: SubresourceJob, body: Data, response: HTTPResponse, importsOnly: Bool) -> [SubresourceJob] {
        let options = loader.options
        var jobs: [SubresourceJob] = []
        // A sheet naming more URLs than a page may load cannot add more than that.
        for reference in CSSURLScanner.references(in: [UInt8](body), limit: options.maximumSubresources + 1) where reference.isImport || !importsOnly {
            guard let url = SubresourceURL.resolve(reference.url, against: response.url) else { continue }
            if reference.isImport && job.importDepth >= options.importDepth {
                note(.importDepth(options.importDepth))
                continue
            }
            let kind: SubresourceKind = reference.isImport ? .stylesheet : Self.kind(ofCSSReference: url)
            jobs.append(SubresourceJob(reference: SubresourceReference(url: url, kind: kind), referrer: response.url,
                                       policy: options.referrerPolicy, frameDepth: job.frameDepth,
                                       importDepth: reference.isImport ? job.importDepth + 1 : job.importDepth))
        }
        return jobs
    }

    private func frameJobs(_ job: SubresourceJob, document: HTMLDocument, response: HTTPResponse) -> [SubresourceJob] {
        let options = loader.options
        var mode = loader.scanMode
        if case .browser = mode, let viewport = job.reference.frameViewport { mode = .browser(viewport) }
        var jobs: [SubresourceJob] = []
        let limit = options.maximumSubresources + 1
        let deeper = job.frameDepth < options.frameDepth
        let scanner = SubresourceScanner.scanner(document, baseURL: response.url, mode: mode) { reference in
            jobs.append(SubresourceJob(reference: reference, referrer: response.url, policy: options.referrerPolicy,
                                       frameDepth: job.frameDepth + 1))
            return deeper && jobs.count < limit
        }
        guard deeper else {
            if !jobs.isEmpty { note(.frameDepth(options.frameDepth)) }
            return []
        }
        if case .browser(let viewport) = mode {
            addStyledDocument(document, baseURL: scanner.base, referrer: response.url, policy: scanner.policy ?? options.referrerPolicy,
                              viewport: viewport, frameDepth: job.frameDepth + 1)
        }
        if case .browser = mode {
            // A frame's icon and manifest are not the page's: Chromium asks for neither.
            jobs.removeAll { $0.reference.kind == .icon || $0.reference.kind == .manifest }
        }
        guard let policy = scanner.policy else { return jobs }
        return jobs.map { SubresourceJob(reference: $0.reference, referrer: $0.referrer, policy: policy, frameDepth: $0.frameDepth) }
    }

    private static func kind(ofCSSReference url: URL) -> SubresourceKind {
        ["woff", "woff2", "ttf", "otf", "eot"].contains(url.pathExtension.lowercased()) ? .font : .image
    }
}
