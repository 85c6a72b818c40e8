import Foundation

/// A file an option's value names and the command reads while it parses (`-d @FILE`, `-w @FILE`,
/// `-K FILE`, `-F name=<FILE`); "-" is standard input. Bounded: such a value is held in memory,
/// so a larger file is refused, with the options that stream one instead.
enum ArgumentFile {
    static let maximumSize = 64 << 20

    /// The file's bytes; a usage error (exit 2) naming `option` when it cannot be read or is too large.
    static func read(_ path: String, option: String, standardInput: () -> Data) throws -> Data {
        if path == "-" {
            let data = standardInput()
            guard data.count <= maximumSize else { throw tooLarge("standard input", option: option) }
            return data
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw UsageError("\(option) \(UsageError.quoted(path)): no such readable file")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: maximumSize + 1) ?? Data()
            guard data.count <= maximumSize else { throw tooLarge(path, option: option) }
            return data
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(option) \(UsageError.quoted(path)): cannot read it (\(error.localizedDescription))")
        }
    }

    private static func tooLarge(_ what: String, option: String) -> UsageError {
        UsageError("\(option): \(what) is over \(maximumSize >> 20) MiB; send a large body with -T FILE or -F name=@FILE, which stream it")
    }
}
