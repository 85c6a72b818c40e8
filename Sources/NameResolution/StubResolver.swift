/// Resolves names over one encrypted `DNSTransport`, answering from a per-session `DNSCache`
/// first. It never falls back to another resolver: a failed query is an error for the caller.
public final class StubResolver: Sendable {
    public let transport: DNSTransport
    public let cache: DNSCache

    public init(transport: DNSTransport, cache: DNSCache = DNSCache()) {
        self.transport = transport
        self.cache = cache
    }

    /// The IPv4 then IPv6 addresses of `host` (4 or 16 bytes each, network order), asked for
    /// in parallel; fails when neither query succeeds or the name has no address.
    public func addresses(of host: String) async throws(ResolutionError) -> [[UInt8]] {
        async let v4 = result(host, type: .a)
        async let v6 = result(host, type: .aaaa)
        let (four, six) = await (v4, v6)
        if case .failure(let error) = four, case .failure = six { throw error }
        let addresses = ((try? four.get()) ?? []) + ((try? six.get()) ?? [])
        let bytes = addresses.compactMap { record -> [UInt8]? in
            if case .address(let address) = record.data { return address }
            return nil
        }
        guard !bytes.isEmpty else {
            if case .failure(let error) = four { throw error }
            throw ResolutionError.unresolved(host, .noAddress, "\(transport.resolverDescription) has no address for it")
        }
        return bytes
    }

    /// The HTTPS records (RFC 9460) of `host`, service mode first by priority.
    public func serviceBindings(of host: String) async throws(ResolutionError) -> [ServiceBinding] {
        try await records(host, type: .https).compactMap { record -> ServiceBinding? in
            if case .serviceBinding(let binding) = record.data { return binding }
            return nil
        }.sorted { $0.priority < $1.priority }
    }

    private func result(_ host: String, type: DNSRecordType) async -> Result<[DNSRecord], ResolutionError> {
        do {
            return .success(try await records(host, type: type))
        } catch {
            return .failure(error)
        }
    }

    /// Forgets every cached answer.
    public func flushCache() { cache.flush() }

    private static func noSuchName(_ host: String, _ transport: DNSTransport) -> ResolutionError {
        ResolutionError.unresolved(host, .noSuchName, "no such name (\(transport.resolverDescription))")
    }

    /// The records of `type` answering `host` (CNAMEs followed): cached, or asked for.
    public func records(_ host: String, type: DNSRecordType) async throws(ResolutionError) -> [DNSRecord] {
        if let cached = cache.lookup(host, type: type) { return cached }
        if cache.isNonexistent(host) { throw Self.noSuchName(host, transport) }
        let query: [UInt8]
        do {
            query = try DNSMessage.query(id: 0, name: host, type: type)
        } catch {
            throw ResolutionError.unresolved(host, .badQuery, error.description)
        }
        let bytes: [UInt8]
        do {
            bytes = try await transport.exchange(query)
        } catch {
            throw ResolutionError.unresolved(host, .resolverFailed, "\(transport.resolverDescription) failed: \(error)")
        }
        let response: DNSMessage
        do {
            response = try DNSMessage(parsing: bytes)
        } catch {
            throw ResolutionError.unresolved(host, .badAnswer, "\(transport.resolverDescription) answered: \(error)")
        }
        guard response.isResponse, response.id == 0, !response.isTruncated, response.questions.count == 1,
              response.questions[0].name == DNSMessage.normalized(host), response.questions[0].type == type else {
            throw ResolutionError.unresolved(host, .badAnswer, "\(transport.resolverDescription) answered another question")
        }
        switch response.responseCode {
        case DNSMessage.noError: break
        case DNSMessage.nameError:
            cache.storeNonexistent(host)
            throw Self.noSuchName(host, transport)
        case let code: throw ResolutionError.unresolved(host, .refused, "\(transport.resolverDescription) answered RCODE \(code)")
        }
        let (records, ttl) = response.records(answering: host, type: type)
        cache.store(records, for: host, type: type, ttl: records.isEmpty ? DNSCache.emptyAnswerSeconds : ttl)
        return records
    }
}
