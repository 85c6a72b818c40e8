import Foundation
import RelayFetch
import Locking

/// Sends requests through a session and keeps each exchange (`HTTPExchange`, its body in
/// memory), in the order they completed; shared by the navigators and clients of one flow.
/// Thread-safe.
public final class ExchangeRecorder: Sendable {
    private let recorded = Locked<[HTTPExchange]>([])

    public init() {}

    /// Every exchange so far.
    public var exchanges: [HTTPExchange] { recorded.withLock { $0 } }

    private func append(_ exchange: HTTPExchange) {
        recorded.withLock { $0.append(exchange) }
    }

    /// The record of one exchange: the body kept whole, its type the whole Content-Type field
    /// (what a flow's HAR has always shown).
    static func exchange(_ request: HTTPRequest, _ response: HTTPResponse, body: Data, startedAt: Date, duration: Double) -> HTTPExchange {
        HTTPExchange(request: request, response: response, mimeType: response.value(forHeaderField: "Content-Type"),
                     body: .data(body), bodySize: body.count, startedAt: startedAt, duration: duration)
    }

    /// `session.data(for:)`, recorded.
    public func data(for request: HTTPRequest, session: Session) async throws -> (Data, HTTPResponse) {
        let started = Date()
        let (body, response) = try await session.data(for: request)
        append(Self.exchange(request, response, body: body, startedAt: started, duration: Date().timeIntervalSince(started)))
        return (body, response)
    }
}

extension Session {
    /// `data(for:)` through `recorder` when there is one.
    public func data(for request: HTTPRequest, recorder: ExchangeRecorder?) async throws -> (Data, HTTPResponse) {
        if let recorder { return try await recorder.data(for: request, session: self) }
        return try await data(for: request)
    }
}
