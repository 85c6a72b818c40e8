import Foundation
import OAuthFlow
import RelayFetch
import WebArchive

/// `relayfetch oauth SCENARIO.json...`: OAuth 2.0 / OpenID Connect flows, each in a fresh
/// ephemeral session through the relays given, one verdict per scenario.
struct OAuthCommand: Subcommand {
    static let help = """
    Usage: relayfetch oauth SCENARIO.json... [options]

    Run OAuth 2.0 / OpenID Connect flows headless, each scenario in a fresh ephemeral session
    through the relays given: discovery, the provider's login and consent forms, the redirect to
    the client's redirect URI (intercepted, never requested), the code exchange with PKCE, the ID
    token's signature (JWKS) and claims, userinfo and refresh; or the client credentials or the
    device authorization grant (the user acts in a second ephemeral session while the client
    polls). Prints one line per step with its time, then PASS or FAIL per scenario. Scenario
    strings may be ${env:NAME}: such values, passwords and client secrets are never printed or
    written. The scenario format is described in README.md.

    Options:
      --junit FILE             write the verdicts as JUnit XML (Jenkins, GitLab)
      --har DIR                write each scenario's exchanges as DIR/<scenario>.har, with cookies,
                               codes, tokens, passwords and client secrets redacted
      --har-with-sensitive-data  keep those values in the HAR files (passwords given as
                               ${env:NAME} and client secrets stay redacted)
      --parallel N             run up to N scenarios at once, each in its own session (default 1);
                               a scenario's lines are printed together when it ends
      -h, --help               show this help
    Relay options:
    \(RelayOptions.help(maximumTimeDefault: "120", allowsDirect: true))

    Exit status: 0 every scenario passed, 1 one failed, 2 bad usage or a bad scenario file (the
    error names the file and the JSON path).
    """

    var scenarios: [(file: String, scenario: OAuthScenario)] = []
    var relay = RelayOptions()
    var junitPath: String?
    var harDirectory: String?
    var harWithSensitiveData = false
    var parallel = 1

    static func parse(_ arguments: [String]) throws -> OAuthCommand? {
        var scanner = ArgumentScanner(arguments)
        var command = OAuthCommand()
        var relay = RelayOptions()
        relay.allowsDirect = true
        var files: [String] = []
        while let argument = scanner.next() {
            if try relay.parse(&scanner) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "--junit": command.junitPath = try scanner.value()
            case "--har": command.harDirectory = try scanner.value()
            case "--har-with-sensitive-data": command.harWithSensitiveData = true
            case "--parallel": command.parallel = try scanner.count(in: 1...1000)
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(argument) for oauth (see relayfetch oauth --help)") }
                files.append(argument)
            }
        }
        guard !files.isEmpty else { throw UsageError("oauth needs a scenario file (see relayfetch oauth --help)") }
        try relay.validate()
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read the scenario file \(file)") }
            command.scenarios.append((file, try OAuthScenario.load(data, file: file)))
        }
        try relay.requireRelays(for: "oauth")
        command.relay = relay
        return command
    }

    func run(io: CommandIO) async -> Int32 {
        let configuration: Session.Configuration
        do {
            configuration = try await relay.sessionConfiguration(warn: io.log)
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        let secrets = scenarios.flatMap(\.scenario.secrets).filter { !$0.isEmpty }
        let redactor = SecretRedactor(secrets: secrets)
        // One printed line: secrets blanked first, then control characters (a newline in a
        // provider's text too) made visible, so nothing can start a line of its own.
        let redact: @Sendable (String) -> String = { TerminalText.neutralized(redactor.redact($0)) }
        let verdicts = parallel > 1 ? await runConcurrently(configuration, io: io, redact: redact)
                                    : await runInTurn(configuration, io: io, redact: redact)
        if let harDirectory {
            do {
                try Self.writeHARs(verdicts, to: harDirectory, secrets: secrets, includingSensitiveData: harWithSensitiveData)
            } catch {
                io.log("relayfetch: error: cannot write HAR files to \(harDirectory): \(error.localizedDescription)")
                return 1
            }
        }
        if let junitPath {
            do {
                try Data(Self.junit(verdicts, redactor: redactor).utf8).write(to: URL(fileURLWithPath: junitPath))
            } catch {
                io.log("relayfetch: error: cannot write \(junitPath): \(error.localizedDescription)")
                return 1
            }
        }
        return verdicts.allSatisfy(\.passed) ? 0 : 1
    }

    /// One scenario after the other, each step printed as it ends.
    private func runInTurn(_ configuration: Session.Configuration, io: CommandIO, redact: @Sendable (String) -> String) async -> [OAuthScenarioRunner.Verdict] {
        var verdicts: [OAuthScenarioRunner.Verdict] = []
        for (_, scenario) in scenarios {
            io.print(redact("scenario \(scenario.name)"))
            let verdict = await OAuthScenarioRunner.run(scenario, sessionConfiguration: configuration) { io.print(redact(Self.line($0))) }
            io.print(redact(Self.verdictLine(verdict)))
            verdicts.append(verdict)
        }
        return verdicts
    }

    /// Up to `parallel` scenarios at once; each one's lines printed together when it ends;
    /// verdicts returned in the order the files were given.
    private func runConcurrently(_ configuration: Session.Configuration, io: CommandIO,
                                 redact: @escaping @Sendable (String) -> String) async -> [OAuthScenarioRunner.Verdict] {
        let all = scenarios.map(\.scenario)
        return await withTaskGroup(of: (Int, OAuthScenarioRunner.Verdict).self) { group in
            var next = 0
            var results = [OAuthScenarioRunner.Verdict?](repeating: nil, count: all.count)
            func start() {
                let index = next
                next += 1
                group.addTask { (index, await OAuthScenarioRunner.run(all[index], sessionConfiguration: configuration)) }
            }
            for _ in 0..<min(parallel, all.count) { start() }
            while let (index, verdict) = await group.next() {
                let block = ["scenario \(verdict.name)"] + verdict.steps.map(Self.line) + [Self.verdictLine(verdict)]
                io.print(block.map(redact).joined(separator: "\n"))
                results[index] = verdict
                if next < all.count { start() }
            }
            return results.compactMap { $0 }
        }
    }

    private static func line(_ step: OAuthScenarioRunner.Step) -> String {
        "  \(step.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(String(format: "%7.3f", step.seconds)) s  \(step.detail)"
    }

    private static func verdictLine(_ verdict: OAuthScenarioRunner.Verdict) -> String {
        verdict.passed ? "PASS \(verdict.name) (\(String(format: "%.3f", verdict.seconds)) s)" : "FAIL \(verdict.name): \(verdict.failure ?? "")"
    }

    /// One HAR file per scenario, named after it (characters other than letters, digits, `-`
    /// and `_` become `_`; a number is added when two names collide).
    static func writeHARs(_ verdicts: [OAuthScenarioRunner.Verdict], to directory: String, secrets: [String], includingSensitiveData: Bool = false) throws {
        let folder = URL(fileURLWithPath: directory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var used: Set<String> = []
        for verdict in verdicts {
            let base = String(verdict.name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
            var name = base
            var counter = 1
            while !used.insert(name).inserted {
                counter += 1
                name = "\(base)-\(counter)"
            }
            try ExchangeHARWriter.data(for: verdict.exchanges, title: verdict.name, redacting: secrets, includingSensitiveData: includingSensitiveData)
                .write(to: folder.appendingPathComponent(name + ".har"))
        }
    }

    /// JUnit XML as Jenkins and GitLab read it: one testsuite, one testcase per scenario, steps
    /// in system-out. Each text is redacted, then neutralised, then escaped: in that order, so
    /// neither escaping hides a secret from the redactor nor a control character makes the XML
    /// invalid.
    static func junit(_ verdicts: [OAuthScenarioRunner.Verdict], redactor: SecretRedactor) -> String {
        func escape(_ text: String) -> String { Self.escape(TerminalText.neutralized(redactor.redact(text))) }
        let failures = verdicts.filter { !$0.passed }.count
        let total = String(format: "%.3f", verdicts.reduce(0) { $0 + $1.seconds })
        var xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="relayfetch oauth" tests="\(verdicts.count)" failures="\(failures)" errors="0" time="\(total)">
        <testsuite name="relayfetch oauth" tests="\(verdicts.count)" failures="\(failures)" errors="0" skipped="0" time="\(total)" timestamp="\(ISO8601DateFormatter().string(from: Date()))">

        """
        for verdict in verdicts {
            xml += "<testcase name=\"\(escape(verdict.name))\" classname=\"relayfetch.oauth\" time=\"\(String(format: "%.3f", verdict.seconds))\">\n"
            if let failure = verdict.failure {
                xml += "<failure message=\"\(escape(failure))\" type=\"OAuthFlowFailure\">\(escape(failure))</failure>\n"
            }
            let steps = verdict.steps.map { escape("\($0.name) \(String(format: "%.3f", $0.seconds)) s: \($0.detail)") }.joined(separator: "\n")
            xml += "<system-out>\(steps)</system-out>\n</testcase>\n"
        }
        return xml + "</testsuite>\n</testsuites>\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
