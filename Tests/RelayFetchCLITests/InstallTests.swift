import Foundation
import XCTest
import RelayFetchTestSupport

/// `make install`: the binary, a man page per command and the bash, zsh and fish completions land
/// under DESTDIR/PREFIX, say what the binary's --help says, and `make uninstall` takes them away.
/// The Makefile installs the built test binary (BINARY=), so no release build is needed here;
/// scripts/test-package.sh covers the release build.
final class InstallTests: XCTestCase {
    private var root: URL!
    private var prefix: URL { root.appendingPathComponent("usr/local") }

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(UUID().uuidString)")
        let install = try make("install")
        XCTAssertEqual(install.status, 0, install.output)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testInstallPutsTheStrippedBinaryPagesAndCompletionsUnderThePrefixAndUninstallRemovesThem() throws {
        let pages = ["relayfetch", "relayfetch-get", "relayfetch-page", "relayfetch-oauth", "relayfetch-crawl", "relayfetch-proxy", "relayfetch-profile"]
        let expected = Set(["bin/relayfetch", "share/bash-completion/completions/relayfetch", "share/zsh/site-functions/_relayfetch",
                            "share/fish/vendor_completions.d/relayfetch.fish"] + pages.map { "share/man/man1/\($0).1.gz" })
        XCTAssertEqual(try installedFiles(), expected)

        let binary = prefix.appendingPathComponent("bin/relayfetch").path
        let version = try TestServers.run([binary, "version"])
        XCTAssertEqual(version.status, 0, version.output)
        XCTAssertTrue(version.output.hasPrefix("relayfetch "), version.output)
        let sections = try TestServers.run(["/usr/bin/readelf", "-S", "-W", binary])
        XCTAssertFalse(sections.output.contains(".symtab"), "the installed binary is stripped")

        let uninstall = try make("uninstall")
        XCTAssertEqual(uninstall.status, 0, uninstall.output)
        XCTAssertEqual(try installedFiles(), [])
    }

    /// Every word of each command's --help, in order, in its rendered man page; and a help with
    /// one option more than the page fails the same check (the page drifted).
    func testEachManPageSaysWhatTheCommandsHelpSays() async throws {
        let names = await CommandRun.run(["help", "--man-pages"]).stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(names.count, 7, "relayfetch and one page per command")
        for name in names {
            let command = name == "relayfetch" ? [] : [String(name.dropFirst("relayfetch-".count))]
            let help = await CommandRun.run(command + ["--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            let page = prefix.appendingPathComponent("share/man/man1/\(name).1.gz").path
            // One line per paragraph (no wrapping, so no hyphenation), bold and underline removed.
            let rendered = try TestServers.run(["/bin/sh", "-c", "MANWIDTH=1000 MAN_KEEP_FORMATTING= man -l '\(page)' 2>/dev/null | col -b"])
            XCTAssertEqual(rendered.status, 0, rendered.output)
            XCTAssertNil(Self.firstMissingWord(of: help.stdoutText, in: rendered.output), "\(name): the man page differs from --help")
            if name == "relayfetch-get" {
                let drifted = help.stdoutText.replacingOccurrences(of: "  -h, --help", with: "  --an-option-added-later  does something\n  -h, --help")
                XCTAssertEqual(Self.firstMissingWord(of: drifted, in: rendered.output), "--an-option-added-later")
            }
        }
    }

    func testBashCompletesEachCommandsOwnOptions() async throws {
        let file = prefix.appendingPathComponent("share/bash-completion/completions/relayfetch").path
        func complete(_ line: String) throws -> [String] {
            // COMP_WORDS as bash fills them for the line, the cursor at its end.
            let script = """
            source '\(file)'
            read -ra COMP_WORDS <<<"$1"; [[ $1 == *' ' ]] && COMP_WORDS+=('')
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$1; COMP_POINT=${#1}
            complete -p relayfetch >/dev/null || exit 3
            _relayfetch; printf '%s\\n' "${COMPREPLY[@]}"
            """
            let result = try TestServers.run(["/bin/bash", "--norc", "--noprofile", "-c", script, "bash", line])
            XCTAssertEqual(result.status, 0, result.output)
            return result.output.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete("relayfetch get --relay-pro"), ["--relay-protocol"])
        XCTAssertEqual(try complete("relayfetch get --relay-p").sorted(), ["--relay-pin", "--relay-privacy-pass", "--relay-privacy-pass-oauth", "--relay-protocol"])
        XCTAssertEqual(try complete("relayfetch get --data-u"), ["--data-urlencode"])
        XCTAssertEqual(try complete("relayfetch crawl --same-d"), ["--same-domain"])
        XCTAssertEqual(try complete("relayfetch get --same-d"), [], "crawl's option is not get's")
        XCTAssertEqual(try complete("relayfetch cr"), ["crawl"])
        XCTAssertEqual(try complete("relayfetch get -o --re"), [], "a value is left to file name completion")
        // Every long option get's help lists, and nothing else.
        let help = await CommandRun.run(["get", "--help"]).stdoutText
        XCTAssertEqual(Set(try complete("relayfetch get --")), Self.longOptions(in: help))
    }

    func testZshCompletesEachCommandsOwnOptions() throws {
        let directory = prefix.appendingPathComponent("share/zsh/site-functions").path
        let harness = TestServers.repository.appendingPathComponent("Tests/RelayFetchCLITests/Fixtures/zsh-complete.zsh").path
        func complete(_ line: String) throws -> Set<String> {
            let result = try TestServers.run(["/usr/bin/timeout", "30", "zsh", "-f", harness, directory, line])
            XCTAssertEqual(result.status, 0, "zsh is installed by scripts/setup.sh: \(result.output)")
            return Set(result.output.split(separator: "\n").map(String.init))
        }
        XCTAssertEqual(try complete("relayfetch get --relay-p").sorted(), ["--relay-pin", "--relay-privacy-pass", "--relay-privacy-pass-oauth", "--relay-protocol"])
        XCTAssertEqual(try complete("relayfetch crawl --same-d"), ["--same-domain"])
        XCTAssertEqual(try complete("relayfetch cr"), ["crawl"])
    }

    func testFishCompletesEachCommandsOwnOptions() throws {
        let file = prefix.appendingPathComponent("share/fish/vendor_completions.d/relayfetch.fish").path
        func complete(_ line: String) throws -> [String] {
            let result = try TestServers.run(["/usr/bin/env", "fish", "--no-config", "-c", "source '\(file)'; complete -C $argv[1]", line])
            XCTAssertEqual(result.status, 0, "fish is installed by scripts/setup.sh: \(result.output)")
            return result.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        XCTAssertEqual(try complete("relayfetch get --relay-p").sorted(), ["--relay-pin", "--relay-privacy-pass", "--relay-privacy-pass-oauth", "--relay-protocol"])
        XCTAssertEqual(try complete("relayfetch crawl --same-d"), ["--same-domain"])
        XCTAssertEqual(try complete("relayfetch get --same-d"), [])
        XCTAssertEqual(try complete("relayfetch cr"), ["crawl"])
    }

    // MARK: - Helpers

    private func make(_ target: String) throws -> (status: Int32, output: String) {
        try TestServers.run(["/usr/bin/make", "-s", "-C", TestServers.repository.path, target, "PREFIX=/usr/local", "DESTDIR=\(root.path)",
                             "BINARY=\(CommandRun.executable)"])
    }

    /// The regular files under the staging root, relative to the prefix.
    private func installedFiles() throws -> Set<String> {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: Set<String> = []
        for case let url as URL in walker where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.insert(String(url.path.dropFirst(prefix.path.count + 1)))
        }
        return files
    }

    /// The first word of `help` (in order) that `page` lacks, or nil. Words compare without case
    /// (man headings are upper case) and without a heading's colon; "Usage:" has no counterpart.
    static func firstMissingWord(of help: String, in page: String) -> String? {
        func words(_ text: String) -> [String] {
            text.split(whereSeparator: \.isWhitespace).map {
                $0.replacingOccurrences(of: "\u{2010}", with: "-").replacingOccurrences(of: "\u{2212}", with: "-").lowercased()
            }
        }
        var pageWords = words(page)[...]
        for word in words(help) where word != "usage:" {
            let bare = word.hasSuffix(":") ? String(word.dropLast()) : word
            guard let index = pageWords.firstIndex(where: { $0 == word || $0 == bare }) else { return word }
            pageWords = pageWords[(index + 1)...]
        }
        return nil
    }

    /// The long options that start a line of a help's option table ("  -X, --request ...").
    static func longOptions(in help: String) -> Set<String> {
        Set(help.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  -") else { return nil }
            return line.split(separator: " ").map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }.first { $0.hasPrefix("--") }
        })
    }
}
