#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HeadlessPage
import RelayFetch
import WebArchive

/// `relayfetch page URL`: the HTML and every subresource, like a private browser.
struct PageCommand {
    static let help = """
    Usage: relayfetch page URL [options]

    Load a page as a private embedded browser would: the HTML, then every subresource it, its
    style sheets and its frames need (images and srcset candidates, scripts, style sheets, fonts,
    icons, media, frames...), concurrently, through the relays given. No JavaScript runs. Cookies
    and cache stay in memory; nothing is written to disk but the files you ask for.

    Options:
      --json                   print a JSON summary (URL, status, every resource) to stdout
      --har FILE               write the load as HAR 1.2 (with a _relayChain per entry)
      --warc FILE              write the load as WARC 1.1 (request and response records)
      --save DIR               write a local copy that opens offline (references rewritten)
      --frame-depth N          how deep nested frames are loaded (default 2)
      -h, --help               show this help
    Relay options:
    \(RelayOptions.help)

    A progress line (resources done/total, bytes) is shown while loading when stderr is a terminal.
    Exit status: 0 loaded (even if some subresources failed), 1 the page failed, 2 bad usage.
    """

    var url: URL
    var relay = RelayOptions()
    var json = false
    var harPath: String?
    var warcPath: String?
    var saveDirectory: String?
    var frameDepth = 2

    static func parse(_ arguments: [String]) throws -> PageCommand? {
        var scanner = ArgumentScanner(arguments)
        var command = PageCommand(url: URL(fileURLWithPath: "/"))
        var relay = RelayOptions()
        var positionals: [String] = []
        while let argument = scanner.next() {
            if try relay.parse(&scanner) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "--json": command.json = true
            case "--har": command.harPath = try scanner.value()
            case "--warc": command.warcPath = try scanner.value()
            case "--save": command.saveDirectory = try scanner.value()
            case "--frame-depth":
                let text = try scanner.value()
                guard let depth = Int(text), depth >= 0 else { throw UsageError("--frame-depth needs a number 0 or more, not \"\(text)\"") }
                command.frameDepth = depth
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(argument) for page (see relayfetch page --help)") }
                positionals.append(argument)
            }
        }
        guard positionals.count == 1 else {
            throw UsageError(positionals.isEmpty ? "page needs a URL (see relayfetch page --help)" : "page takes one URL, got \(positionals.count)")
        }
        command.url = try GetCommand.validatedURL(positionals[0])
        try relay.validate()
        command.relay = relay
        return command
    }

    func run(io: CommandIO) async -> Int32 {
        guard let session = await relay.makeSession(io: io) else { return 1 }
        defer { session.invalidate() }
        var options = PageLoader.Options()
        options.frameDepth = frameDepth
        options.keepBodies = warcPath != nil || saveDirectory != nil
        let showProgress = isatty(STDERR_FILENO) == 1
        let page: Page
        do {
            page = try await PageLoader(session: session, options: options).load(url) { progress in
                if showProgress { io.progress("\r\u{1B}[K  \(progress.done)/\(progress.total) resources, \(progress.bytes) bytes") }
            }
            if showProgress { io.progress("\r\u{1B}[K") }
        } catch {
            io.log("relayfetch: error: \(error)")
            return 1
        }
        let archives: [(String?, () throws -> Data)] = [(harPath, { try HARWriter.data(for: page) }), (warcPath, { WARCWriter.data(for: page) })]
        for case let (path?, make) in archives {
            do {
                try make().write(to: URL(fileURLWithPath: path))
            } catch {
                io.log("relayfetch: error: cannot write \(path): \(error.localizedDescription)")
                return 1
            }
        }
        if let saveDirectory {
            do {
                let index = try OfflineCopy.write(page, to: URL(fileURLWithPath: saveDirectory))
                if !json { io.print("saved: \(index.path)") }
            } catch {
                io.log("relayfetch: error: cannot save to \(saveDirectory): \(error.localizedDescription)")
                return 1
            }
        }
        if json {
            do { io.write(try PageSummary.data(for: page)) } catch { io.log("relayfetch: error: \(error)"); return 1 }
        } else {
            io.print("\(page.url.absoluteString): \(page.statusCode), \(page.resources.count) subresources, "
                     + "\(page.totalBytes) bytes in \(String(format: "%.3f", page.loadTime)) s"
                     + (page.main.relayChain.isEmpty ? " (direct)" : " via " + page.main.relayChain.joined(separator: " -> ")))
            for resource in page.failedResources {
                io.print("  failed: \(resource.url.absoluteString): \(resource.error ?? "status \(resource.statusCode ?? 0)")")
            }
        }
        return 0
    }
}
