import Foundation
import RelayFetch
import Locking

/// One request and its response as sent and received (for archives such as HAR).
public struct RecordedExchange: Sendable {
    public let request: HTTPRequest
    public let response: HTTPResponse
    public let body: Data
    public let startedAt: Date
    /// Seconds from the request to the last byte.
    public let duration: Double
}

/// Sends requests through a session and keeps each exchange, in the order they completed;
/// shared by the navigators and clients of one flow. Thread-safe.
public final class ExchangeRecorder: Sendable {
    private let recorded = Locked<[RecordedExchange]>([])

    public init() {}

    /// Every exchange so far.
    public var exchanges: [RecordedExchange] { recorded.withLock { $0 } }

    private func append(_ exchange: RecordedExchange) {
        recorded.withLock { $0.append(exchange) }
    }

    /// `session.data(for:)`, recorded.
    public func data(for request: HTTPRequest, session: Session) async throws -> (Data, HTTPResponse) {
        let started = Date()
        let (body, response) = try await session.data(for: request)
        let exchange = RecordedExchange(request: request, response: response, body: body, startedAt: started,
                                        duration: Date().timeIntervalSince(started))
        append(exchange)
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
