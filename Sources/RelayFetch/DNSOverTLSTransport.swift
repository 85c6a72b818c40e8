import Foundation
import NameResolution
import RelayTransport

/// DNS over TLS (RFC 7858): a TLS connection to port 853 of the resolver's pinned address,
/// verified as its name, carrying each query and response with a two-byte length prefix. One
/// connection per query, on the session's event loop.
struct DNSOverTLSTransport: DNSTransport {
    let host: String
    let port: UInt16
    let addresses: [String]
    let trust: TLSTrust
    let loop: EventLoop
    let timeout: Double

    var resolverDescription: String { "DNS-over-TLS resolver \(host):\(port)" }

    func exchange(_ query: [UInt8]) async throws -> [UInt8] {
        var lastError: Error = FetchError(.nameResolution("\(resolverDescription) has no address"))
        for address in addresses {
            do {
                return try await exchange(query, at: address)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private func exchange(_ query: [UInt8], at address: String) async throws -> [UInt8] {
        let description = HopDescription(index: 0, endpoint: "\(address):\(port)", protocolName: "DNS over TLS")
        let (host, port, trust, loop, timeout) = (host, port, trust, loop, timeout)
        return try await withCheckedThrowingContinuation { continuation in
            let queued = loop.execute {
                let exchange = DNSOverTLSExchange(continuation: continuation)
                do {
                    let connection = try TLSClientConnection(loop: loop, address: address, port: port, serverName: host, trust: trust,
                                                             alpn: ["dot"], description: description)
                    exchange.start(on: connection, query: query, loop: loop, timeout: timeout)
                } catch {
                    exchange.finish(.failure(FetchError(.nameResolution("DNS-over-TLS resolver \(host): \(error)"))))
                }
            }
            if !queued { continuation.resume(throwing: FetchError(.transfer("the session was invalidated"))) }
        }
    }
}

/// One query on one DoT connection: sends it framed, reads one framed response. Loop thread only.
private final class DNSOverTLSExchange {
    private var continuation: CheckedContinuation<[UInt8], Error>?
    private var connection: TLSClientConnection?
    private var received: [UInt8] = []
    private var timer: UInt64?
    private weak var loop: EventLoop?

    init(continuation: CheckedContinuation<[UInt8], Error>) { self.continuation = continuation }

    func start(on connection: TLSClientConnection, query: [UInt8], loop: EventLoop, timeout: Double) {
        self.connection = connection  // the exchange and its connection hold each other until finish
        self.loop = loop
        timer = loop.schedule(after: timeout) { [self] in finish(.failure(FetchError(.nameResolution("DNS-over-TLS resolver timed out")))) }
        connection.onReceive = { [self] bytes in
            received += bytes
            guard received.count >= 2 else { return }
            let length = Int(received[0]) << 8 | Int(received[1])
            if received.count >= 2 + length { finish(.success(Array(received[2..<2 + length]))) }
        }
        connection.onEnd = { [self] error in
            finish(.failure(FetchError(.nameResolution("DNS-over-TLS resolver closed the connection" + (error.map { ": \($0)" } ?? "")))))
        }
        connection.connect { [self] result in
            switch result {
            case .success: connection.send([UInt8(query.count >> 8), UInt8(query.count & 0xFF)] + query)
            case .failure(let error): finish(.failure(FetchError(.nameResolution("DNS-over-TLS resolver: \(error)"))))
            }
        }
    }

    func finish(_ result: Result<[UInt8], Error>) {
        guard let continuation else { return }
        self.continuation = nil
        if let timer { loop?.cancelTimer(timer) }
        connection?.onReceive = nil
        connection?.onEnd = nil
        connection?.close()
        connection = nil
        continuation.resume(with: result)
    }
}
