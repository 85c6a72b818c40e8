import HTTPCore
/// The size rules of one response body, as curl's `--max-filesize` has them: a declared length
/// over the limit fails before any byte; a 206 is judged by where its range ends (the size of
/// the file it completes), and the bytes before its range count toward the limit too; the
/// request's shared budget, if any, gives each piece as it is taken.
struct BodyLimit {
    /// Largest body accepted (`.max`: none).
    let maximum: Int
    /// Body bytes taken so far.
    private(set) var received = 0
    /// Where a 206's range starts in the resource (below `maximum`, so no subtraction overflows).
    private var rangeStart = 0
    /// Set once a rule was broken; the transfer stops.
    private(set) var exceeded = false

    init(maximum: Int) { self.maximum = maximum }

    /// Whether a final response's head may go on to its body: false (and `exceeded`) when its
    /// Content-Range or Content-Length already breaks the limit.
    mutating func admits(_ head: HTTPResponse, method: String) -> Bool {
        guard maximum < .max else { return true }
        if head.statusCode == 206, let range = head.value(forHeaderField: "Content-Range").flatMap(ResponseHead.byteRange) {
            guard range.last < maximum else { return exceed() }
            rangeStart = range.first
        }
        if (200..<300).contains(head.statusCode), method != "HEAD",
           let length = head.value(forHeaderField: "Content-Length").flatMap(Int.init), length > maximum - rangeStart {
            return exceed()
        }
        return true
    }

    /// Bytes the body may still grow by (`.max` without a limit).
    var room: Int { maximum == .max ? .max : max(0, maximum - rangeStart - received) }

    /// Whether `count` more bytes fit the limit (before they are offered anywhere).
    mutating func fits(_ count: Int) -> Bool { received + count > maximum - rangeStart ? exceed() : true }

    /// Takes `count` bytes that were accepted, from `budget` too: false (and `exceeded`) when the
    /// budget is overdrawn by them.
    mutating func take(_ count: Int, from budget: ByteBudget?) -> Bool {
        if budget?.take(count) == false { return exceed() }
        received += count
        return true
    }

    private mutating func exceed() -> Bool {
        exceeded = true
        return false
    }
}
