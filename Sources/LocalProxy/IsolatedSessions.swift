import Foundation
import Locking
import RelayFetch

/// One `Session` per client identity (the SOCKS5 or Basic username; no name is an identity of
/// its own), so clients given different names never share a relay connection, tunnel, TLS
/// session or resolver cache (Tor's IsolateSOCKSAuth). A reload starts a new generation: new
/// connections get new sessions, and each old one ends when its last stream does.
final class IsolatedSessions: Sendable {
    private struct Slot {
        let session: Session
        var streams = 0
        var retired = false
    }

    private struct State {
        var configuration: Session.Configuration
        var current: [String: ObjectIdentifier] = [:]
        var slots: [ObjectIdentifier: Slot] = [:]
    }

    private let state: Locked<State>

    init(configuration: Session.Configuration) {
        state = Locked(State(configuration: configuration))
    }

    /// The session for `identity`, made on first use, counted as used by one more stream until
    /// `release` (so a reload cannot end it under the stream).
    func acquire(for identity: String?) throws -> Session {
        try state.withLock { state in
            let key = identity.map { "user:" + $0 } ?? "anonymous"
            if let id = state.current[key], var slot = state.slots[id] {
                slot.streams += 1
                state.slots[id] = slot
                return slot.session
            }
            let session = try Session(configuration: state.configuration)
            let id = ObjectIdentifier(session)
            state.current[key] = id
            state.slots[id] = Slot(session: session, streams: 1)
            return session
        }
    }

    func release(_ session: Session) {
        let ended: Session? = state.withLock { state in
            let id = ObjectIdentifier(session)
            guard var slot = state.slots[id] else { return nil }
            slot.streams -= 1
            guard slot.retired, slot.streams == 0 else {
                state.slots[id] = slot
                return nil
            }
            state.slots[id] = nil
            return slot.session
        }
        // Invalidating waits for the session's threads, and this may run on one of them.
        if let ended { DispatchQueue.global().async { ended.invalidate() } }
    }

    /// New streams use `configuration`; sessions of the old one end with their last stream.
    func replace(configuration: Session.Configuration) {
        let idle: [Session] = state.withLock { state in
            state.configuration = configuration
            state.current = [:]
            var idle: [Session] = []
            for (id, var slot) in state.slots {
                if slot.streams == 0 {
                    state.slots[id] = nil
                    idle.append(slot.session)
                } else {
                    slot.retired = true
                    state.slots[id] = slot
                }
            }
            return idle
        }
        for session in idle { session.invalidate() }
    }

    /// Ends every session (after the streams have ended or been given up on).
    func invalidateAll() {
        let all = state.withLock { state in
            let sessions = state.slots.values.map(\.session)
            state.slots = [:]
            state.current = [:]
            return sessions
        }
        for session in all { session.invalidate() }
    }

    /// How many sessions exist now (for tests of isolation).
    var count: Int { state.withLock { $0.slots.count } }
}
