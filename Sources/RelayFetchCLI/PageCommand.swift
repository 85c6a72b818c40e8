#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HeadlessPage
import OfflineCopy
import RelayFetch
import WebArchive

/// `relayfetch page URL`: the HTML and every subresource, like a private browser.
struct PageCommand: Subcommand {
    static let help = """
    Usage: relayfetch page URL [options]

    Load a page as a private browser would, through the relays given: the HTML, then what
    Chromium with JavaScript off requests for it in the viewport: style sheets and their
    imports, the images and fonts the cascade applies to rendered boxes, one srcset or picture
    candidate per image, frames, media, objects, the icon (or /favicon.ico), the manifest and the
    preloads it honours. No JavaScript runs and no scripts are fetched. With --complete, every
    URL the page could need in any viewport or medium instead (every candidate, font format,
    print sheet, css image and script), as offline copies and archives want. Cookies and cache
    stay in memory; nothing is written to disk but the files you ask for.

    Options:
      --complete               load every URL the page could need in any viewport or medium
                               (implied by --save)
      --viewport WxH[@R]       the screen media queries, srcset and sizes are evaluated for
                               (default 1280x800, device pixel ratio 1)
      --json                   print a JSON summary (URL, status, every resource) to stdout
      --har FILE               write the load as HAR 1.2 (with a _relayChain per entry), with
                               cookie and authorization values and URL credentials (token, code,
                               password, ... parameters) redacted
      --har-with-sensitive-data  keep those values in the HAR file as they were sent
      --warc FILE              write the load as WARC 1.1 (request and response records)
      --save DIR               write a local copy that opens offline (references rewritten)
      --frame-depth N          how deep nested frames are loaded (default 2, at most 10)
      --import-depth N         how deep style sheet @import chains are followed (default 8,
                               at most 32)
      --max-subresources N     distinct subresources loaded for the page (default 2000)
      --max-page-bytes N       bytes of the page and its subresources together, with an
                               optional K, M or G suffix (default 256M)
      --max-style-bytes N      bytes of style sheet text scanned and applied for the page,
                               with an optional K, M or G suffix (default 8M)
      --max-style-rules N      style rules applied per document (default 100000)
      -h, --help               show this help
    \(PageContentOptions.help)
    Relay options:
    \(RelayOptions.help(maximumTimeDefault: "120", allowsDirect: true))

    A page that reaches one of these limits still loads what fits, with a warning naming the
    limit and its option. A subresource that --save cannot write inside DIR (a symbolic link or
    a file where a folder belongs) is skipped with a warning; nothing is written outside DIR.
    A progress line (resources done/total, bytes) is shown while loading when stderr is a terminal.
    Exit status: 0 loaded (even if some subresources failed), 1 the page failed (or, with
    --require-match, a selector matched nothing), 2 bad usage.
    """

    var url: URL
    var relay = RelayOptions()
    var json = false
    var harPath: String?
    var harWithSensitiveData = false
    var warcPath: String?
    var saveDirectory: String?
    var frameDepth = PageLoader.Options().frameDepth
    var importDepth = PageLoader.Options().importDepth
    var maximumSubresources = PageLoader.Options().maximumSubresources
    var maximumPageBytes = PageLoader.Options().maximumPageBytes
    var maximumStyleBytes = PageLoader.Options().maximumStyleBytes
    var maximumStyleRules = PageLoader.Options().maximumStyleRules
    var complete = false
    var viewport = Viewport()
    var content = PageContentOptions()

    static func parse(_ arguments: [String]) throws -> PageCommand? {
        var scanner = ArgumentScanner(arguments)
        var command = PageCommand(url: URL(fileURLWithPath: "/"))
        var relay = RelayOptions()
        relay.allowsDirect = true
        var positionals: [String] = []
        while let argument = scanner.next() {
            if try relay.parse(&scanner) { continue }
            if try command.content.parse(&scanner) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "--json": command.json = true
            case "--har": command.harPath = try scanner.value()
            case "--har-with-sensitive-data": command.harWithSensitiveData = true
            case "--warc": command.warcPath = try scanner.value()
            case "--save": command.saveDirectory = try scanner.value()
            case "--complete": command.complete = true
            case "--viewport":
                let text = try scanner.value()
                guard let viewport = Viewport(parsing: text) else {
                    throw UsageError("--viewport needs WIDTHxHEIGHT with an optional @RATIO (e.g. 1280x800 or 390x844@3), not \(UsageError.quoted(text))")
                }
                command.viewport = viewport
            case "--frame-depth": command.frameDepth = try scanner.count(in: PageLoader.Options.frameDepthRange)
            case "--import-depth": command.importDepth = try scanner.count(in: PageLoader.Options.importDepthRange)
            case "--max-subresources": command.maximumSubresources = try scanner.count(in: 1...1_000_000)
            case "--max-page-bytes": command.maximumPageBytes = try scanner.byteCount(in: (1 << 10)...(64 << 30))
            case "--max-style-bytes": command.maximumStyleBytes = try scanner.byteCount(in: 0...(1 << 30))
            case "--max-style-rules": command.maximumStyleRules = try scanner.count(in: 0...100_000_000)
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(argument) for page (see relayfetch page --help)") }
                positionals.append(argument)
            }
        }
        guard positionals.count == 1 else {
            throw UsageError(positionals.isEmpty ? "page needs a URL (see relayfetch page --help)" : "page takes one URL, got \(positionals.count)")
        }
        command.url = try GetCommand.validatedURL(positionals[0])
        try command.content.validate(json: command.json)
        try relay.validate()
        try relay.requireRelays(for: "page")
        command.relay = relay
        return command
    }

    /// The option that raises `limit`, for warnings.
    private static func option(for limit: PageLimit) -> String {
        switch limit {
        case .subresources(let value): "stopped at \(value) subresources (raise with --max-subresources)"
        case .bytes(let value): "stopped at \(value) bytes for the page (raise with --max-page-bytes)"
        case .importDepth(let value): "style sheet @import chains cut at depth \(value) (raise with --import-depth)"
        case .frameDepth(let value): "frames nested deeper than \(value) not loaded (raise with --frame-depth)"
        case .styleBytes(let value): "style sheets cut at \(value) bytes for the page (raise with --max-style-bytes)"
        case .styleRules(let value): "style rules cut at \(value) for a document (raise with --max-style-rules)"
        }
    }

    func run(io: CommandIO) async -> Int32 {
        guard let session = await relay.makeSession(io: io) else { return 1 }
        defer { session.invalidate() }
        var options = PageLoader.Options()
        options.frameDepth = frameDepth
        options.importDepth = importDepth
        options.maximumSubresources = maximumSubresources
        if let maximumTime = relay.maximumTime { options.pageTimeout = maximumTime }  // the whole page, as for get
        options.maximumPageBytes = maximumPageBytes
        options.maximumStyleBytes = maximumStyleBytes
        options.maximumStyleRules = maximumStyleRules
        options.keepBodies = warcPath != nil || saveDirectory != nil
        // Large bodies the page does not parse spool to unnamed files beside the output the user named.
        options.spoolDirectory = warcPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? saveDirectory.map { path in
                let folder = URL(fileURLWithPath: path)
                return FileManager.default.fileExists(atPath: folder.path) ? folder : folder.deletingLastPathComponent()
            }
        options.mode = complete || saveDirectory != nil ? .complete : .browser
        options.viewport = viewport
        let showProgress = isatty(STDERR_FILENO) == 1
        let page: Page
        do {
            page = try await PageLoader(session: session, options: options).load(url) { progress in
                if showProgress { io.progress("\r\u{1B}[K  \(progress.done)/\(progress.total) resources, \(progress.bytes) bytes") }
            }
            if showProgress { io.progress("\r\u{1B}[K") }
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        for limit in page.limitsReached { io.log("relayfetch: warning: \(Self.option(for: limit))") }
        let archives: [(String?, () throws -> Data?)] = [(harPath, { [harWithSensitiveData] in try HARWriter.data(for: page, includingSensitiveData: harWithSensitiveData) }), (warcPath, { nil })]
        for case let (path?, make) in archives {
            do {
                if let data = try make() {
                    try data.write(to: URL(fileURLWithPath: path))
                } else {
                    try WARCWriter.write(page, to: URL(fileURLWithPath: path))
                }
            } catch {
                io.log("relayfetch: error: cannot write \(path): \(error.localizedDescription)")
                return 1
            }
        }
        if let saveDirectory {
            do {
                let index = try OfflineCopy.write(page, to: URL(fileURLWithPath: saveDirectory)) { url, error in
                    io.log("relayfetch: warning: not saved: \(url.absoluteString): \(error)")
                }
                if !json && !content.isRequested { io.print("saved: \(index.path)") }
            } catch {
                io.log("relayfetch: error: cannot save to \(saveDirectory): \((error as? OfflineCopyError)?.description ?? error.localizedDescription)")
                return 1
            }
        }
        if content.isRequested {
            return printContent(of: page, io: io)
        }
        if json {
            do { io.write(try PageSummary.data(for: page)) } catch { io.log("relayfetch: error: \(ErrorHint.text(error))"); return 1 }
        } else {
            io.print("\(page.url.absoluteString): \(page.statusCode), \(page.resources.count) subresources, "
                     + "\(page.totalBytes) bytes in \(String(format: "%.3f", page.loadTime)) s"
                     + (page.main.exchange.relayChain.isEmpty ? " (direct)" : " via " + page.main.exchange.relayChain.joined(separator: " -> ")))
            for resource in page.failedResources {
                io.print("  failed: \(resource.url.absoluteString): \(resource.error ?? "status \(resource.statusCode ?? 0)")")
            }
        }
        return 0
    }

    /// Prints what the content options ask for; 1 when --require-match finds a selector unmatched.
    private func printContent(of page: Page, io: CommandIO) -> Int32 {
        do {
            let (output, unmatched) = try content.render(page)
            io.write(output)
            for selector in unmatched { io.log("relayfetch: no match for --select \(UsageError.quoted(selector))") }
            return unmatched.isEmpty ? 0 : 1
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
    }
}
