import Foundation
import RelayFetch

/// An entry's `time` and `timings` as HAR 1.2 defines them: each phase in milliseconds (-1 when
/// it did not happen), `ssl` also counted inside `connect`, and `time` the sum of blocked, dns,
/// connect, send, wait and receive, so the phases add up in every entry. Time the exchange spent
/// before libcurl started it (queued behind the page's concurrency limits, or a cache lookup) is
/// `blocked`. A name the relay resolved was never looked up here: `dns` is -1, and the tunnel
/// through the relays (CONNECT at each hop) is inside `connect`, where a browser behind a proxy
/// reports it too.
struct HARTimings {
    let time: Double
    let timings: HARLog.Timings

    init(_ phases: HTTPTimings, duration: Double, relayed: Bool) {
        func micro(_ seconds: Double) -> Int { seconds < 0 ? -1 : Int((seconds * 1_000_000).rounded()) }
        let dns = relayed ? -1 : micro(phases.dns)
        let ssl = micro(phases.ssl)
        let rawConnect = micro(phases.connect)
        let connect = rawConnect < 0 && ssl < 0 ? -1 : max(rawConnect, 0) + max(ssl, 0)
        let send = max(micro(phases.send), 0), wait = max(micro(phases.wait), 0), receive = max(micro(phases.receive), 0)
        let phasesTotal = max(dns, 0) + max(connect, 0) + send + wait + receive
        let blocked = max(micro(duration) - phasesTotal, 0)
        func milliseconds(_ value: Int) -> Double { value < 0 ? -1 : Double(value) / 1000 }
        time = milliseconds(blocked + phasesTotal)
        timings = .init(blocked: milliseconds(blocked), dns: milliseconds(dns), connect: milliseconds(connect),
                        ssl: milliseconds(ssl), send: milliseconds(send), wait: milliseconds(wait), receive: milliseconds(receive))
    }
}
