import Foundation

/// Where a command writes: standard output and error by default, buffers in tests.
public final class CommandIO: Sendable {
    private let out: @Sendable (Data) -> Void
    private let err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (Data) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and standard error.
    public static let standard = CommandIO(
        out: { FileHandle.standardOutput.write($0) },
        err: { FileHandle.standardError.write(Data($0.utf8)) })

    func write(_ data: Data) { out(data) }
    func print(_ text: String) { out(Data((text + "\n").utf8)) }
    /// One line to standard error.
    func log(_ text: String) { err(text + "\n") }
    /// Raw text to standard error (progress lines that rewrite themselves).
    func progress(_ text: String) { err(text) }
}

/// Bad command-line usage: exit code 2, with a sentence saying what to fix.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
