import Foundation
import XCTest
@testable import RelayFetchCLI
import RelayFetchTestSupport

/// The help each command prints is its option table: man pages and completions are made from it
/// (HelpText), so it must list exactly the options the parsers take, and be read back right.
final class HelpOptionTableTests: XCTestCase {
    func testEveryOptionInEachHelpIsOneItsCommandParses() {
        for (name, command) in CommandLineTool.subcommands {
            let options = HelpText(command.help).options
            XCTAssertGreaterThan(options.count, 1, name)
            for option in options {
                for flag in option.flags {
                    // A value that fails its check is fine here; an option the parser does not know is not.
                    XCTAssertNoThrow(try Self.parsesOrRefusesTheValue(command, [flag] + (option.argument == nil ? [] : ["x"])), "\(name) \(flag)")
                }
            }
        }
    }

    /// Each option a parser matches (a `case "-x", "--long":` in Sources/RelayFetchCLI) is an
    /// item of some help, where completion and the man pages find it.
    func testEveryOptionTheParsersMatchIsInAHelp() throws {
        let listed = Set(([CommandLineTool.help] + CommandLineTool.subcommands.values.map { $0.help }).flatMap { HelpText($0).options.flatMap(\.flags) })
        let sources = TestServers.repository.appendingPathComponent("Sources/RelayFetchCLI")
        var parsed: Set<String> = []
        // help's own switches (--man, --completion) are what make the pages and completions.
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") && file != "HelpCommand.swift" {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("case \"-") {
                // The quoted labels before the colon: every other piece between quotes.
                let labels = line.split(separator: ":", maxSplits: 1)[0].split(separator: "\"", omittingEmptySubsequences: false)
                for (index, label) in labels.enumerated() where index % 2 == 1 && HelpText.Option.isFlag(label) {
                    parsed.insert(String(label))
                }
            }
        }
        XCTAssertGreaterThan(parsed.count, 100)
        XCTAssertEqual(parsed.subtracting(listed).sorted(), [], "options parsed but in no help (nor in completion or man page)")
    }

    func testHelpTextReadsItemsLongTermsProseAndSections() {
        let help = HelpText("""
        Usage: tool run FILE [options]

        Do a thing: the first sentence.

        Options:
          -X, --request METHOD     the method; continued
                                   on this line
          -u, --user USER:PASSWORD Basic authentication
          --store postgres://USER@HOST/DB?sslmode=verify-full
                                   a long term, its description below
          --relay-header 'N: v'    a value with a space
          Prose at column two, with -d in it and no table layout at all.
        Examples:
          tool run a.txt \\
              --request GET
        Exit status: 0 success, 2 bad usage.
        """)
        XCTAssertEqual(help.blocks, [
            .usage(["tool run FILE [options]"]), .paragraph(["Do a thing: the first sentence."]), .heading("Options"),
            .item(term: "-X, --request METHOD", description: ["the method; continued", "on this line"]),
            .item(term: "-u, --user USER:PASSWORD", description: ["Basic authentication"]),
            .item(term: "--store postgres://USER@HOST/DB?sslmode=verify-full", description: ["a long term, its description below"]),
            .item(term: "--relay-header 'N: v'", description: ["a value with a space"]),
            .literal(["Prose at column two, with -d in it and no table layout at all."]), .heading("Examples"),
            .literal(["tool run a.txt \\", "    --request GET"]), .heading("Exit status"), .paragraph(["0 success, 2 bad usage."]),
        ])
        XCTAssertEqual(help.summary, "do a thing")
        XCTAssertEqual(help.options.map(\.flags), [["-X", "--request"], ["-u", "--user"], ["--store"], ["--relay-header"]])
        XCTAssertEqual(help.options.map(\.argument), ["METHOD", "USER:PASSWORD", "postgres://USER@HOST/DB?sslmode=verify-full", "'N: v'"])
    }

    func testManPageEscapesWhatRoffWouldReadAsRequests() {
        XCTAssertEqual(ManPage.escaped(".hidden 'x' -v \\n"), "\\&.hidden 'x' \\-v \\en")
        XCTAssertEqual(ManPage.escaped("'quoted"), "\\&'quoted")
    }

    private static func parsesOrRefusesTheValue(_ command: any Subcommand.Type, _ arguments: [String]) throws {
        do {
            _ = try command.parse(arguments)
        } catch {
            if "\(error)".contains("unknown option") { throw error }
        }
    }
}
