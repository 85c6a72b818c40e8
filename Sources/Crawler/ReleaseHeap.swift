/// When hosts waiting only for time (a delay, a Crawl-delay, a pause) may start again: a binary
/// min-heap of times, so that the coordinator finds the hosts freed by now, and the next time
/// one frees, without looking at every host it knows. An entry may be out of date (the host
/// changed since); whoever pops it checks the host again.
struct ReleaseHeap: Sendable {
    private var entries: [(time: Double, host: String)] = []

    var count: Int { entries.count }

    /// The earliest entry.
    var first: (time: Double, host: String)? { entries.first }

    mutating func insert(_ time: Double, host: String) {
        entries.append((time, host))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].time < entries[parent].time else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    @discardableResult
    mutating func removeFirst() -> (time: Double, host: String)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].time < entries[smallest].time { smallest = left }
            if right < entries.count, entries[right].time < entries[smallest].time { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
