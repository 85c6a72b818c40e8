/// A `relayfetch` subcommand: parses its arguments (nil when `--help` was asked for), then runs
/// and returns the exit status.
protocol Subcommand: Sendable {
    static var help: String { get }
    static func parse(_ arguments: [String]) throws -> Self?
    func run(io: CommandIO) async -> Int32
}

extension Subcommand {
    /// Parses `arguments` and runs the command, or prints its help.
    static func main(_ arguments: [String], io: CommandIO) async throws -> Int32 {
        guard let command = try parse(arguments) else {
            io.print(help)
            return 0
        }
        return await command.run(io: io)
    }
}
