/// A dictionary that holds at most `capacity` entries: inserting past it evicts the entry used
/// least recently (read with `value(for:)` or written). What a crawl or a relay pool keeps per
/// host goes here, so that a site answering every host name cannot grow it without end. Every operation is
/// O(1): entries sit in a doubly linked list (by array index), most recent first.
package struct RecentlyUsedMap<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        var value: Value
        var newer: Int?
        var older: Int?
    }

    package let capacity: Int
    static var maximumLooks: Int { 32 }
    private var nodes: [Node] = []
    private var index: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    package var count: Int { index.count }

    /// The value for `key`, which becomes the most recently used.
    package mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// The value for `key`, leaving the order as it is.
    package func peek(_ key: Key) -> Value? { index[key].map { nodes[$0].value } }

    /// Sets the value for `key` (the most recently used now). Past the capacity, the least
    /// recently used entries for which `evictable` holds are removed and returned; entries it
    /// refuses move to the front instead. A call looks at `maximumLooks` entries at most, so it
    /// stays O(1): while more are refused, the map holds more than its capacity for a while,
    /// and gives them up on later calls.
    @discardableResult
    package mutating func set(_ value: Value, for key: Key, evictable: (Value) -> Bool = { _ in true }) -> [(key: Key, value: Value)] {
        if let slot = index[key] {
            nodes[slot].value = value
            moveToFront(slot)
        } else {
            nodes.append(Node(key: key, value: value, newer: nil, older: nil))
            index[key] = nodes.count - 1
            link(nodes.count - 1)
        }
        var evicted: [(key: Key, value: Value)] = []
        var looked = 0
        while index.count > capacity, looked < min(index.count, Self.maximumLooks), let last = oldest {
            looked += 1
            if nodes[last].key != key, evictable(nodes[last].value) {
                evicted.append((nodes[last].key, nodes[last].value))
                remove(slot: last)
            } else {
                moveToFront(last)
            }
        }
        return evicted
    }

    /// Removes `key`'s entry; returns its value.
    @discardableResult
    package mutating func removeValue(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = nodes[slot].value
        remove(slot: slot)
        return value
    }

    /// Unlinks the entry, then moves the last node into its slot: the array stays dense, and
    /// an evicted value is released at once.
    private mutating func remove(slot: Int) {
        unlink(slot)
        index[nodes[slot].key] = nil
        let last = nodes.count - 1
        if slot != last {
            nodes[slot] = nodes[last]
            index[nodes[slot].key] = slot
            if let newer = nodes[slot].newer { nodes[newer].older = slot } else { newest = slot }
            if let older = nodes[slot].older { nodes[older].newer = slot } else { oldest = slot }
        }
        nodes.removeLast()
    }

    private mutating func moveToFront(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        link(slot)
    }

    private mutating func link(_ slot: Int) {
        nodes[slot].newer = nil
        nodes[slot].older = newest
        if let newest { nodes[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if let newer { nodes[newer].older = older } else { newest = older }
        if let older { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = nil
        nodes[slot].older = nil
    }
}

extension RecentlyUsedMap: Sendable where Key: Sendable, Value: Sendable {}

extension RecentlyUsedMap.Node: Sendable where Key: Sendable, Value: Sendable {}
