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

    /// The current option's value as a byte count within `range` (NumericArgument.byteCount).
    mutating func byteCount(in range: ClosedRange<Int> = 0...NumericArgument.maximumBytes) throws -> Int {
        try NumericArgument.byteCount(try value(), option: current, in: range)
    }

    /// The current option's value as seconds, above 0 (or 0 too) and at most a year.
    mutating func seconds(allowsZero: Bool = false) throws -> Double {
        try NumericArgument.seconds(try value(), option: current, allowsZero: allowsZero)
    }

    /// The current option's value as a decimal number of `unit` within `range`.
    mutating func number(in range: ClosedRange<Double>, unit: String) throws -> Double {
        try NumericArgument.number(try value(), option: current, in: range, unit: unit)
    }

    /// The current option's value as a whole number within `range`.
    mutating func count(in range: ClosedRange<Int>) throws -> Int {
        try NumericArgument.count(try value(), option: current, in: range)
    }
}
