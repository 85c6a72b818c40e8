@_exported import struct RelayTransport.HopDescription
import RelayTransport

extension FetchError {
    /// A relay hop that failed, or that cut a tunnel after it was up: which hop, and why.
    public struct RelayFailure: Sendable, CustomStringConvertible {
        public let hop: Hop
        public let cause: Cause

        /// "hop 2 (relay.example:443, HTTPS, HTTP/2 CONNECT): connection refused".
        public var description: String { "\(hop): \(cause)" }

        /// The transport's error, as callers see it.
        init(_ error: RelayError) {
            hop = error.hop
            cause = Cause(code: error.cause)
        }
    }

    /// A hop of a relay chain as failures name it: the transport's own `HopDescription`,
    /// re-exported (one type from the transport to the caller).
    public typealias Hop = HopDescription
}

extension FetchError.RelayFailure {
    /// Why a hop failed, over the transport's cause: compare with the static members
    /// (`.connectionRefused`, `.tunnelRefused(status:reason:)`...); `description` says it in words.
    public struct Cause: Sendable, Hashable, CustomStringConvertible {
        let code: RelayError.Cause

        /// The relay's address refused the connection.
        public static let connectionRefused = Cause(code: .connectionRefused)
        /// The hop did not answer in time.
        public static let timeout = Cause(code: .timeout)
        /// The relay's key matches none of the pinned ones.
        public static let publicKeyPinMismatch = Cause(code: .publicKeyPinMismatch)

        /// The relay answered the CONNECT with a non-2xx `status`.
        public static func tunnelRefused(status: Int, reason: String) -> Cause {
            Cause(code: .tunnelRefused(status: status, reason: reason))
        }

        /// The hop's `RelayTokenProvider` gave no token (`why` as the provider said it).
        public static func tokenUnavailable(_ why: String) -> Cause { Cause(code: .tokenUnavailable(why)) }

        /// The relay refused the hop's token with `status` again after the provider replaced it.
        public static func tokenRefused(status: Int, reason: String) -> Cause {
            Cause(code: .tokenRefused(status: status, reason: reason))
        }

        /// The status of the relay's refusal of the tunnel (403, 407, 502...), else nil.
        public var refusalStatus: Int? {
            if case .tunnelRefused(let status, _) = code { return status }
            return nil
        }

        /// The reply code (RFC 1928 §6, 1 to 255) of a SOCKS5 server's refusal of the tunnel, else nil.
        public var socksReply: Int? {
            if case .socksRefused(let reply) = code { return Int(reply.code) }
            return nil
        }

        public var description: String { code.description }
    }
}
