import HTTPCore
import Foundation

/// Counting semaphores: one overall, one per origin.
actor ConcurrencyLimits {
    private let total: Int
    private let perOrigin: Int
    private var running = 0
    private var runningByOrigin: [String: Int] = [:]
    private var waiting: [(origin: String, continuation: CheckedContinuation<Void, Never>)] = []

    init(total: Int, perOrigin: Int) {
        self.total = max(1, total)
        self.perOrigin = max(1, perOrigin)
    }

    func acquire(_ url: URL) async {
        let origin = url.originKey
        if canRun(origin) {
            take(origin)
            return
        }
        await withCheckedContinuation { waiting.append((origin, $0)) }
    }

    func release(_ url: URL) {
        let origin = url.originKey
        running -= 1
        runningByOrigin[origin, default: 1] -= 1
        if let index = waiting.firstIndex(where: { canRun($0.origin) }) {
            let next = waiting.remove(at: index)
            take(next.origin)
            next.continuation.resume()
        }
    }

    private func canRun(_ origin: String) -> Bool { running < total && runningByOrigin[origin, default: 0] < perOrigin }
    private func take(_ origin: String) {
        running += 1
        runningByOrigin[origin, default: 0] += 1
    }

}
