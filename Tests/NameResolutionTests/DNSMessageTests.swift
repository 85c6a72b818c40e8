import Locking
import XCTest
@testable import NameResolution

/// The DNS codec on hand-made messages: what resolvers send, and what a hostile one could.
final class DNSMessageTests: XCTestCase {
    /// A response header: id, flags (QR, RD, RA, rcode), counts.
    private func header(id: UInt16 = 0, rcode: UInt8 = 0, questions: UInt16 = 1, answers: UInt16) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), 0x81, 0x80 | rcode, 0, UInt8(questions), 0, UInt8(answers), 0, 0, 0, 0]
    }

    private func name(_ text: String) -> [UInt8] { try! DNSMessage.encodedName(text) }

    private func record(_ owner: [UInt8], type: UInt16, ttl: UInt32, _ rdata: [UInt8]) -> [UInt8] {
        owner + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1,
                 UInt8(ttl >> 24), UInt8(ttl >> 16 & 0xFF), UInt8(ttl >> 8 & 0xFF), UInt8(ttl & 0xFF),
                 UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)] + rdata
    }

    func testQueryIsPaddedAndAsksOneQuestion() throws {
        let query = try DNSMessage.query(id: 0, name: "Relay-A.test.", type: .a)
        XCTAssertEqual(query.count % 128, 0, "EDNS(0) padding to a 128-byte block")
        let parsed = try DNSMessage(parsing: query)
        XCTAssertFalse(parsed.isResponse)
        XCTAssertEqual(parsed.questions.count, 1)
        XCTAssertEqual(parsed.questions[0].name, "relay-a.test")
        XCTAssertEqual(parsed.questions[0].type, .a)
    }

    func testRefusesNamesDNSCannotCarry() {
        XCTAssertThrowsError(try DNSMessage.query(id: 0, name: "a..b", type: .a))
        XCTAssertThrowsError(try DNSMessage.query(id: 0, name: String(repeating: "x", count: 64) + ".test", type: .a))
        XCTAssertThrowsError(try DNSMessage.query(id: 0, name: Array(repeating: "abcdefgh", count: 40).joined(separator: "."), type: .a))
    }

    func testCNAMEChainWithCompressionGivesTheFinalAddressesAndTheSmallestTTL() throws {
        // Question "www.relay.test"; "www" is an alias of "edge.relay.test" (compressed against
        // the question), whose A records follow.
        var message = header(answers: 3) + name("www.relay.test") + [0, 1, 0, 1]
        let question = 12, relayTest = 16  // offsets of "www.relay.test" and "relay.test"
        let pointer: (Int) -> [UInt8] = { [0xC0 | UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        message += record(pointer(question), type: 5, ttl: 300, [4] + Array("edge".utf8) + pointer(relayTest))
        let edge = message.count - 7  // where "edge" + pointer starts in the CNAME's data
        message += record(pointer(edge), type: 1, ttl: 60, [127, 0, 0, 11])
        message += record(pointer(edge), type: 1, ttl: 120, [127, 0, 0, 12])
        let parsed = try DNSMessage(parsing: message)
        let (records, ttl) = parsed.records(answering: "WWW.relay.test.", type: .a)
        XCTAssertEqual(records.map(\.data), [.address([127, 0, 0, 11]), .address([127, 0, 0, 12])])
        XCTAssertEqual(records.first?.name, "edge.relay.test")
        XCTAssertEqual(ttl, 60)
    }

    func testCompressionLoopsAndForwardPointersAreRefused() {
        // A name that points at itself, and one that points ahead of itself.
        let selfLoop = header(answers: 0) + [0xC0, 12, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: selfLoop))
        let ahead = header(answers: 0) + [0xC0, 20, 0, 1, 0, 1] + name("x.test")
        XCTAssertThrowsError(try DNSMessage(parsing: ahead))
        // Two names pointing at each other's start: the second pointer goes backwards, the first
        // forwards, so the loop cannot start.
        let mutual = header(questions: 2, answers: 0) + [0xC0, 18, 0, 1, 0, 1] + [0xC0, 12, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: mutual))
    }

    func testLabelsOutsideHostNameBytesAreRefused() {
        // One label "relay.test" (a dot inside) must not read as the two labels of relay.test.
        let dotted = header(answers: 0) + [10] + Array("relay.test".utf8) + [0, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: dotted))
        let control = header(answers: 0) + [2, 0x61, 0x00, 0, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: control))
        let highBit = header(answers: 0) + [1, 0xC3, 0, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: highBit))
    }

    func testTruncatedAndMalformedRecordsAreRefused() {
        let good = header(answers: 1) + name("a.test") + [0, 1, 0, 1] + record([0xC0, 12], type: 1, ttl: 5, [1, 2, 3, 4])
        XCTAssertNoThrow(try DNSMessage(parsing: good))
        for cut in 0..<good.count { XCTAssertThrowsError(try DNSMessage(parsing: Array(good.prefix(cut))), "cut at \(cut)") }
        let shortA = header(answers: 1) + name("a.test") + [0, 1, 0, 1] + record([0xC0, 12], type: 1, ttl: 5, [1, 2, 3])
        XCTAssertThrowsError(try DNSMessage(parsing: shortA))
    }

    func testHTTPSRecordALPNPortAndHints() throws {
        // priority 1, target ".", alpn=h3,h2, port=4433, ipv4hint=127.0.0.11
        let rdata: [UInt8] = [0, 1, 0] + [0, 1, 0, 6, 2] + Array("h3".utf8) + [2] + Array("h2".utf8)
            + [0, 3, 0, 2, 0x11, 0x51] + [0, 4, 0, 4, 127, 0, 0, 11]
        let message = header(answers: 1) + name("relay.test") + [0, 65, 0, 1] + record([0xC0, 12], type: 65, ttl: 30, rdata)
        let parsed = try DNSMessage(parsing: message)
        guard case .serviceBinding(let binding)? = parsed.records(answering: "relay.test", type: .https).records.first?.data else {
            return XCTFail("no HTTPS record")
        }
        XCTAssertEqual(binding, ServiceBinding(priority: 1, target: "", alpn: ["h3", "h2"], port: 4433, addressHints: [[127, 0, 0, 11]]))
        // Keys out of order are refused (RFC 9460 §2.2).
        let unordered: [UInt8] = [0, 1, 0] + [0, 3, 0, 2, 0, 1] + [0, 1, 0, 3, 2] + Array("h2".utf8)
        XCTAssertThrowsError(try ServiceBinding(rdata: unordered))
    }

    func testNonexistentNamesAreRememberedForHalfAMinute() {
        let now = Locked(100.0)
        let cache = DNSCache(clock: { now.withLock { $0 } })
        cache.storeNonexistent("Gone.test.")
        XCTAssertTrue(cache.isNonexistent("gone.test"))
        XCTAssertFalse(cache.isNonexistent("other.test"))
        now.withLock { $0 += Double(DNSCache.emptyAnswerSeconds) + 0.5 }
        XCTAssertFalse(cache.isNonexistent("gone.test"), "believed for emptyAnswerSeconds only")
        cache.storeNonexistent("gone.test")
        cache.flush()
        XCTAssertFalse(cache.isNonexistent("gone.test"))
    }

    /// NXDOMAIN for one type from a resolver that has records of another is not believed.
    func testANameWithCachedRecordsIsNotMarkedNonexistent() {
        let cache = DNSCache(clock: { 100 })
        let record = DNSRecord(name: "half.test", type: .a, ttl: 60, data: .address([1, 2, 3, 4]))
        cache.store([record], for: "half.test", type: .a, ttl: 60)
        cache.storeNonexistent("half.test")
        XCTAssertFalse(cache.isNonexistent("half.test"))
        cache.storeNonexistent("later.test")
        cache.store([record], for: "later.test", type: .a, ttl: 60)
        XCTAssertFalse(cache.isNonexistent("later.test"), "records that came after clear the mark")
        XCTAssertEqual(cache.lookup("half.test", type: .a), [record])
    }

    func testCacheHonoursTTLAndFlush() {
        let now = Locked(100.0)  // the cache reads its clock from any thread
        let cache = DNSCache(clock: { now.withLock { $0 } })
        let record = DNSRecord(name: "a.test", type: .a, ttl: 10, data: .address([1, 2, 3, 4]))
        cache.store([record], for: "A.test.", type: .a, ttl: 10)
        cache.store([record], for: "zero.test", type: .a, ttl: 0)
        XCTAssertEqual(cache.lookup("a.test", type: .a), [record])
        XCTAssertNil(cache.lookup("a.test", type: .aaaa))
        XCTAssertNil(cache.lookup("zero.test", type: .a), "a TTL of 0 is not cached")
        now.withLock { $0 += 10.5 }
        XCTAssertNil(cache.lookup("a.test", type: .a), "expired after its TTL")
        cache.store([record], for: "a.test", type: .a, ttl: 10)
        cache.flush()
        XCTAssertNil(cache.lookup("a.test", type: .a))
    }
}
