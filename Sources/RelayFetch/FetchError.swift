import RelayTransport

/// Why a fetch failed: bad input, a relay hop (named), or the origin transfer.
///
/// `code` says which condition it is, as an open set: `Code` is a struct of static values, not
/// an enum, so a new condition is a new static value and no client's `switch` stops compiling
/// (a public enum would break every exhaustive switch outside the package, and `@unknown default`
/// is only enforced for library-evolution builds, which this package is not). Compare with `==`
/// or match `case .timedOut:` with a `default:`. The condition's values are properties of the
/// error (`relayError`, `seconds`, `limit`, `host`, `peer`); `Detail` holds them inside the
/// package, where the text is written.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    package enum Detail: Sendable {
        case invalidURL(String)
        case unsupportedScheme(String)
        case invalidRelay(index: Int, reason: String)
        /// A hop of the chain failed, or cut the tunnel after it was up; the failure names it.
        case relay(RelayFailure)
        /// The exchange with the origin failed after the tunnel was up (or, direct, at all).
        case transfer(String)
        case tooManyRedirects(Int)
        case redirectLoop(String)
        case responseTooLarge(limit: Int)
        case timedOut(Double)
        /// No byte arrived for `seconds` from `peer` (host:port), reached through `route`'s hops;
        /// `stalled` says who stopped, when the relays could be probed.
        case idleTimeout(seconds: Double, peer: String, route: [String], stalled: String?)
        /// An Oblivious HTTP exchange failed (relay refused, bad key, response not authentic).
        case oblivious(String)
        /// A name relayfetch resolves itself could not be resolved (encrypted resolution).
        case nameResolution(String)
        /// No relay configuration covers the host, and the session allows no direct connection.
        case notRelayed(host: String)
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    /// A failure of the relay chain, as the transport reported it.
    init(relay error: RelayError) { detail = .relay(RelayFailure(error)) }

    /// The relay hop's failure, when a hop failed.
    public var relayError: RelayFailure? {
        if case .relay(let error) = detail { return error }
        return nil
    }

    public var description: String {
        switch detail {
        case .invalidURL(let text): return "invalid URL \"\(text)\""
        case .unsupportedScheme(let scheme): return "unsupported URL scheme \"\(scheme)\" (use http:// or https://)"
        case .invalidRelay(let index, let reason): return "relay \(index): \(reason)"
        case .relay(let failure): return failure.description
        case .transfer(let why): return why
        case .tooManyRedirects(let count): return "too many redirects (more than \(count))"
        case .redirectLoop(let url): return "redirect loop at \(url)"
        case .responseTooLarge(let limit): return "response larger than the limit of \(limit) bytes"
        case .timedOut(let seconds): return "timed out after \(Self.format(seconds)) s (the time limit for the whole request)"
        case .idleTimeout(let seconds, let peer, let route, let stalled):
            let via = route.isEmpty ? "" : " through " + route.indices.map { "hop \($0 + 1) (\(route[$0]))" }.joined(separator: ", ")
            let who = stalled ?? (route.isEmpty ? "the origin stalled" : "the origin or a relay stalled")
            return "no data for \(Self.format(seconds)) s from \(peer)\(via): \(who) (idle timeout)"
        case .oblivious(let why): return "Oblivious HTTP: \(why)"
        case .nameResolution(let why): return "name resolution: \(why)"
        case .notRelayed(let host): return "no relay configuration covers \(host), and this session never connects directly"
        }
    }

    /// 2 rather than 2.0; 1.5 stays 1.5.
    private static func format(_ seconds: Double) -> String {
        guard seconds < 1e9 else { return String(seconds) }
        // Tenths at most: a limit derived from another (0.8 x 3 s) reads "2.4", not "2.4000000000000004".
        let tenths = (seconds * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
