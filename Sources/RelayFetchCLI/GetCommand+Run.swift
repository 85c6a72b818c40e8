import HTTPCore
import Foundation
import Locking
import RelayFetch

extension GetCommand {
    func run(io: CommandIO) async -> Int32 {
        var relay = relay
        // A download may take as long as it needs: the idle timeout ends a stalled one.
        if relay.maximumTime == nil { relay.maximumTime = .infinity }
        relay.tracesPrivacyPass = verbose
        let redirects = followsRedirects ? (maximumRedirects < 0 ? 1 << 30 : maximumRedirects) : 0
        guard let session = await relay.makeSession(io: io, adjusting: { $0.maximumRedirects = redirects }) else { return 1 }
        defer { session.invalidate() }
        if verbose {
            // An OHTTP relay without a --relay chain has no hops, but is no direct route.
            let relays = (session.configuration.proxyConfigurations.first?.relayHops ?? []).compactMap { $0.endpointURL.map(Self.withoutCredentials) }
                + (relay.ohttpRelay.map { ["ohttp:\($0.absoluteString)"] } ?? [])
            let hosts = Set(urls.compactMap(\.host)).sorted().joined(separator: ", ")
            io.log(relays.isEmpty ? "* route: direct (--direct)" : "* route: " + (relays + [hosts]).joined(separator: " -> "))
            session.onTunnelOpen { reports in reports.forEach { io.log("* \($0)") } }
            await relay.reportTokenFetches(of: session, io: io)
        }
        let reports = parallel ? await fetchInParallel(session: session, io: io) : await fetchInTurn(session: session, io: io)
        return reports.map(\.exitCode).max() ?? 0
    }

    /// A relay URL as -v shows it: a socks5:// relay's username and password left out.
    private static func withoutCredentials(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.user != nil else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    private func fetchInTurn(session: Session, io: CommandIO) async -> [TransferReport] {
        var reports: [TransferReport] = []
        for target in targets {
            let meter = ProgressMeter.wanted(silent: silent, verbose: verbose, bodyToStandardOutput: target.outputPath == nil)
                ? ProgressMeter(bar: progressBar, io: io) : nil
            let report = await fetch(target, session: session, io: io, meter: meter, emit: io.write)
            finish(report, io: io)
            reports.append(report)
        }
        return reports
    }

    /// All at once (at most --parallel-max), on the one session; what goes to standard output is
    /// held per URL and written in the URLs' order, each with its -w text, as soon as all before it are.
    private func fetchInParallel(session: Session, io: CommandIO) async -> [TransferReport] {
        let held = Locked([Int: (output: Data, report: TransferReport?)]())
        let nextToWrite = Locked(1)
        let targets = targets
        // curl's parallel meter: one line for all transfers.
        let meter = ProgressMeter.wanted(silent: silent, verbose: verbose, bodyToStandardOutput: targets.contains { $0.outputPath == nil })
            ? ParallelProgressMeter(transfers: targets.count, bar: progressBar, io: io) : nil
        defer { meter?.finish() }
        return await withTaskGroup(of: TransferReport.self) { group in
            var reports: [TransferReport] = []
            var started = 0
            func start() {
                guard started < targets.count else { return }
                let target = targets[started]
                started += 1
                group.addTask {
                    defer { meter?.partFinished() }
                    return await fetch(target, session: session, io: io, meter: meter?.part(),
                                       emit: { data in held.withLock { $0[target.index, default: (Data(), nil)].output += data } })
                }
            }
            for _ in 0..<min(parallelMaximum, targets.count) { start() }
            while let report = await group.next() {
                reports.append(report)
                held.withLock { $0[report.index, default: (Data(), nil)].report = report }
                // Write out every finished URL whose predecessors are all written.
                while let ready = held.withLock({ held -> (Data, TransferReport)? in
                    let index = nextToWrite.withLock { $0 }
                    guard let entry = held[index], let report = entry.report else { return nil }
                    held[index] = nil
                    nextToWrite.withLock { $0 += 1 }
                    return (entry.output, report)
                }) {
                    if !ready.0.isEmpty { io.write(ready.0) }
                    finish(ready.1, io: io)
                }
                start()
            }
            return reports.sorted { $0.index < $1.index }
        }
    }

    /// Prints a finished URL's error (unless -s without -S) and its -w text.
    private func finish(_ report: TransferReport, io: CommandIO) {
        if let error = report.error, !silent || showError { io.log("relayfetch: error: \(ErrorHint.text(error))") }
        guard let writeOut else { return }
        for (stream, text) in writeOut.render(report) {
            switch stream {
            case .stdout: io.write(Data(text.utf8))
            case .stderr: io.progress(text)
            }
        }
    }

    /// One URL, tried again as --retry allows, counted on `meter`; never throws: the report
    /// holds the outcome.
    func fetch(_ target: Target, session: Session, io: CommandIO, meter: ProgressMeter?,
               emit: @escaping @Sendable (Data) -> Void) async -> TransferReport {
        let started = Date()
        var report = TransferReport(index: target.index, url: target.url, method: request.effectiveMethod, outputPath: target.outputPath)
        defer { meter?.finish() }
        var schedule = RetryPolicy.Schedule(retry, started: started)
        var outgoing: HTTPRequest
        do {
            outgoing = try request.request(for: target.url)
            // Held whole before it is written in order: bounded even without --max-filesize.
            outgoing.maximumBodySize = parallel && target.outputPath == nil ? maximumFileSize ?? 50 << 20 : maximumFileSize
        } catch {
            report.error = "\(error)"
            report.exitCode = 1
            return report
        }
        meter?.watch(upload: outgoing.bodyStream)
        if verbose { io.log("> \(outgoing.method) \(outgoing.url.absoluteString)") }
        while true {
            let sink = OutputSink(emit: emit, meter: meter)
            do {
                let outcome = try await transfer(outgoing, to: target, session: session, io: io, sink: sink,
                                                 retryable: schedule.left > 0 ? retry.retries(status:) : { _ in false })
                report.response = outcome.response
                report.bytesDownloaded = outcome.bodyBytes
                if case .retry(let response, let body, let resumeOffset) = outcome.kind {
                    if let wait = schedule.nextWait(retryAfter: response.value(forHeaderField: "Retry-After")) {
                        body.cancel()
                        warn("the server answered \(response.statusCode)", wait: wait, left: schedule.left, io: io)
                        try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
                        continue
                    }
                    // No retry left after all (--retry-max-time): this answer is the result.
                    let delivered = try await deliver(response, body: body, file: target.outputPath.map { URL(fileURLWithPath: $0) },
                                                      method: outgoing.method, resumeOffset: resumeOffset, io: io, sink: sink)
                    report.bytesDownloaded = delivered.bodyBytes
                }
                if let stream = outgoing.bodyStream { report.bytesUploaded = stream.bytesSent } else { report.bytesUploaded = outgoing.body?.count ?? 0 }
                if let response = report.response {
                    if failOnHTTPError && response.statusCode >= 400 {
                        report.error = "the server answered \(response.statusCode) for \(response.url.absoluteString)"
                        report.exitCode = 1
                    } else if followsRedirects, maximumRedirects == 0, let location = report.redirectURL {
                        report.error = "the server redirected to \(location), and --max-redirs 0 follows none"
                        report.exitCode = 1
                    } else if followsRedirects, let location = report.redirectURL, !silent, RedirectRule.isCrossOrigin(response.url, location) {
                        io.log("relayfetch: warning: the \(response.statusCode) to \(location) was not followed: it would take the "
                               + "\(outgoing.method)\(outgoing.body != nil || outgoing.bodyStream != nil ? " and its body" : "") to another origin "
                               + "(--location-trusted allows it)")
                    }
                }
            } catch {
                // Body bytes already on standard output cannot be taken back: no retry then.
                if sink.written == 0 || target.outputPath != nil, retry.retries(error: error), let wait = schedule.nextWait(retryAfter: nil) {
                    warn("\(describe(error, outputPath: target.outputPath))", wait: wait, left: schedule.left, io: io)
                    try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
                    continue
                }
                report.error = describe(error, outputPath: target.outputPath)
                report.exitCode = 1
            }
            report.retries = schedule.retriesDone
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
    }

    private func warn(_ problem: String, wait: Double, left: Int, io: CommandIO) {
        guard !silent else { return }
        io.log("relayfetch: warning: \(problem); retrying in \(Self.seconds(wait)), \(left) \(left == 1 ? "retry" : "retries") left")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// The error as one sentence; a size limit names the option that set it, and what became of the file.
    func describe(_ error: Error, outputPath: String?) -> String {
        guard Self.isSizeLimit(error), let maximumFileSize else { return "\(error)" }
        if !keepPartial, resume, let outputPath, DownloadFile.resumption(of: URL(fileURLWithPath: outputPath)) != nil {
            // The limit is on the whole file: the partial one plus the rest would pass it.
            return "the whole file would be larger than --max-filesize \(maximumFileSize) bytes; \(outputPath) keeps what it had"
        }
        let kept = outputPath.map { keepPartial ? "; what arrived is kept in \($0)" : "; no file was written (--keep-partial keeps what arrived)" } ?? ""
        return "the body is larger than --max-filesize \(maximumFileSize) bytes\(kept)"
    }
}

/// Whether a redirect left its origin; the one comparison -w's note and the warning share.
enum RedirectRule {
    static func isCrossOrigin(_ from: URL, _ to: String) -> Bool {
        guard let target = URL(string: to) else { return true }
        return target.originKey != from.originKey
    }
}
