import Foundation

/// Where a command writes: standard output and error by default, buffers in tests.
public final class CommandIO: Sendable {
    private let out: @Sendable (Data) -> Void
    private let err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (Data) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and standard error. Output that cannot be written (a full
    /// disk, a closed pipe) ends the process with status 1 and one line saying so, as a failed
    /// `-o` file does, instead of trapping or going on with the output silently cut short;
    /// standard error that cannot be written is dropped (there is nowhere left to say so).
    public static let standard = CommandIO(
        out: { data in
            do {
                try FileHandle.standardOutput.write(contentsOf: data)
            } catch {
                try? FileHandle.standardError.write(contentsOf: Data("relayfetch: cannot write standard output: \(error.localizedDescription)\n".utf8))
                exit(1)
            }
        },
        err: { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) })

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

    /// A value the user gave, in quotes as Swift writes a string literal: a line break, an
    /// escape sequence or any other control character is escaped, so the sentence stays one
    /// line and a terminal shows it as text; a long value is cut after 200 characters.
    static func quoted(_ value: String) -> String {
        value.count > 200 ? String(value.prefix(200)).debugDescription + "..." : value.debugDescription
    }

    /// `text` with its control characters (C0, DEL, C1) escaped as `\u{..}`: an error that
    /// repeats a value from the command line or a file stays one line of plain text.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) }
}
