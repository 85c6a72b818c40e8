/// Walks command-line arguments: flags, options with a value (`--name value` or `--name=value`),
/// and positionals.
struct ArgumentScanner {
    private var remaining: ArraySlice<String>
    private var pendingValue: String?
    private(set) var current = ""

    init(_ arguments: [String]) { remaining = arguments[...] }

    /// The next argument, with any `=value` split off for `value()`.
    mutating func next() -> String? {
        guard let argument = remaining.popFirst() else { return nil }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            current = String(argument[..<equals])
            pendingValue = String(argument[argument.index(after: equals)...])
        } else {
            current = argument
            pendingValue = nil
        }
        return current
    }

    /// The value of the option just read by `next()`.
    mutating func value() throws -> String {
        if let value = pendingValue {
            pendingValue = nil
            return value
        }
        guard let value = remaining.popFirst() else { throw UsageError("\(current) needs a value") }
        return value
    }

    /// A positive number value for the current option.
    mutating func number() throws -> Double {
        let text = try value()
        guard let number = Double(text), number > 0, number.isFinite else {
            throw UsageError("\(current) needs a positive number, not \"\(text)\"")
        }
        return number
    }
}
