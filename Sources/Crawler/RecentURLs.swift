/// The last URLs the store was given, a bounded set in front of its seen set: most links of a
/// page were on the page before it too (menus, pagination), and a lookup here saves a store
/// statement for each. The store's seen set only grows, so a URL held here is there for good.
/// Oldest out first once `capacity` URLs are held.
struct RecentURLs {
    private var members: Set<String> = []
    private var ring: [String]
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = []
        ring.reserveCapacity(self.capacity)
        members.reserveCapacity(self.capacity)
    }

    func contains(_ url: String) -> Bool { members.contains(url) }

    mutating func insert(_ url: String) {
        guard members.insert(url).inserted else { return }
        if ring.count < capacity {
            ring.append(url)
        } else {
            members.remove(ring[next])
            ring[next] = url
            next = (next + 1) % capacity
        }
    }
}
