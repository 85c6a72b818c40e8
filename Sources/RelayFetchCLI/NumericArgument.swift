/// The one parser of the numbers options take: byte counts, durations and counts. Each refuses
/// what is not plainly its kind (signs, spaces, other digits, NaN, infinities, unknown suffixes,
/// nothing at all) and anything outside the option's range, with one sentence naming the option,
/// so that no value reaches arithmetic that would overflow and trap.
enum NumericArgument {
    /// The most bytes any option takes: 1 PiB, far beyond any limit a fetch or a crawl needs,
    /// and small enough that a count of them fits every computation made with it.
    static let maximumBytes = 1 << 50
    /// The longest duration any option takes: one year. Converted to nanoseconds it still fits
    /// a UInt64, and to milliseconds an Int.
    static let maximumSeconds = 31_536_000.0

    private static let byteUnits: [(suffix: Character, shift: Int)] = [("K", 10), ("M", 20), ("G", 30), ("T", 40)]

    /// "1048576", "512k", "100M", "1G", "2T" (powers of 1024; suffix in either case).
    static func byteCount(_ text: String, option: String, in range: ClosedRange<Int> = 0...maximumBytes) throws -> Int {
        var digits = Substring(text)
        var shift = 0
        if let last = text.last, let unit = byteUnits.first(where: { String($0.suffix) == last.uppercased() }) {
            digits = digits.dropLast()
            shift = unit.shift
        }
        guard let value = wholeNumber(digits), value <= Int.max >> shift, range.contains(value << shift) else {
            throw UsageError("\(option) needs a byte count from \(bytes(range.lowerBound)) to \(bytes(range.upperBound)) "
                             + "(digits with an optional K, M, G or T suffix, powers of 1024), not \(UsageError.quoted(text))")
        }
        return value << shift
    }

    /// Seconds as a decimal number ("30", "1.5", "2e3"), above 0 (or 0 too) and at most a year.
    static func seconds(_ text: String, option: String, allowsZero: Bool = false) throws -> Double {
        guard let value = decimal(text), value >= 0, allowsZero || value > 0, value <= maximumSeconds else {
            throw UsageError("\(option) needs a number of seconds \(allowsZero ? "from 0" : "above 0 and") up to \(Int(maximumSeconds)) "
                             + "(a year), not \(UsageError.quoted(text))")
        }
        return value
    }

    /// A decimal number within `range` ("0.5", "10"), for rates.
    static func number(_ text: String, option: String, in range: ClosedRange<Double>, unit: String) throws -> Double {
        guard let value = decimal(text), range.contains(value) else {
            throw UsageError("\(option) needs a number of \(unit) from \(format(range.lowerBound)) to \(format(range.upperBound)), "
                             + "not \(UsageError.quoted(text))")
        }
        return value
    }

    /// A whole number within `range`, in ASCII digits.
    static func count(_ text: String, option: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = wholeNumber(Substring(text)), range.contains(value) else {
            throw UsageError("\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
        }
        return value
    }

    /// ASCII digits only (no sign, no space), nil past Int.max.
    private static func wholeNumber(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(digits)
    }

    /// Digits with an optional fraction and exponent; finite. Swift's own parser also reads "nan",
    /// "inf", hexadecimal and a sign, none of which is a duration or a rate.
    private static func decimal(_ text: String) -> Double? {
        guard let first = text.utf8.first, (0x30...0x39).contains(first) || first == UInt8(ascii: "."),
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "-"),
                                                                   UInt8(ascii: "+")].contains($0) }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// 1024 as "1K", 64 << 30 as "64G": the largest suffix that divides it.
    private static func bytes(_ count: Int) -> String {
        guard count > 0, let unit = byteUnits.last(where: { count % (1 << $0.shift) == 0 }) else { return "\(count)" }
        return "\(count >> unit.shift)\(unit.suffix)"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
