@testable import NameResolution

/// Parses DNS messages as an encrypted resolver (or someone on its path) could send them. The
/// reader must never loop or read out of bounds; what it accepts must hold names DNS can carry,
/// and every question it read must ask again as a query that reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func dnsMessageFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? DNSMessage(parsing: bytes) else { return 0 }
    for record in message.answers {
        fuzzCheck(record.name.utf8.count <= 255, "an answer name longer than 255 bytes")
        if case .cname(let target) = record.data { fuzzCheck(target.utf8.count <= 255, "a CNAME target longer than 255 bytes") }
        if case .address(let address) = record.data { fuzzCheck(address.count == 4 || address.count == 16, "an address of \(address.count) bytes") }
    }
    for question in message.questions {
        let (records, _) = message.records(answering: question.name, type: question.type)
        fuzzCheck(records.allSatisfy { $0.type == question.type }, "an answer of another type")
        // Names with dots inside labels cannot be written back; others must round-trip.
        guard let query = try? DNSMessage.query(id: 7, name: question.name, type: question.type) else { continue }
        let reread = try? DNSMessage(parsing: query)
        fuzzCheck(reread?.questions.first?.name == question.name && reread?.questions.first?.type == question.type,
                  "the question \(question.name) does not survive a round trip")
    }
    return 0
}
