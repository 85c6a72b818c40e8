import WireFormat

/// A DNS message (RFC 1035 §4) as relayfetch uses it: queries it writes (one question,
/// recursion desired, EDNS(0) with padding) and responses it reads (the answer section decoded;
/// authority and additional records are not needed and not read).
public struct DNSMessage: Sendable {
    public var id: UInt16
    public var isResponse: Bool
    /// RCODE: 0 no error, 2 server failure, 3 no such name (NXDOMAIN), ...
    public var responseCode: UInt8
    /// TC: the answer did not fit (never over TCP, TLS or HTTPS, where it is an error).
    public var isTruncated: Bool
    public var questions: [(name: String, type: DNSRecordType)]
    public var answers: [DNSRecord]

    public static let noError: UInt8 = 0
    public static let nameError: UInt8 = 3

    /// Reads a response (or any message); throws for anything malformed.
    public init(parsing bytes: [UInt8]) throws(ResolutionError) {
        var reader = DNSMessageReader(bytes)
        id = try reader.u16()
        let flags = try reader.u16()
        isResponse = flags & 0x8000 != 0
        isTruncated = flags & 0x0200 != 0
        responseCode = UInt8(flags & 0x000F)
        let questionCount = Int(try reader.u16())
        let answerCount = Int(try reader.u16())
        _ = try reader.u16()  // authority
        _ = try reader.u16()  // additional
        questions = []
        for _ in 0..<questionCount {
            let name = try reader.name()
            let type = DNSRecordType(rawValue: try reader.u16())
            _ = try reader.u16()  // class
            questions.append((name, type))
        }
        answers = []
        for _ in 0..<answerCount { answers.append(try Self.record(&reader)) }
    }

    /// The wire form of a query for `name` and `type`: recursion desired, and an EDNS(0) OPT
    /// record padded (RFC 7830, RFC 8467) so the message is a multiple of `paddingBlock` bytes,
    /// which keeps the name's length from showing in the encrypted message's size.
    public static func query(id: UInt16, name: String, type: DNSRecordType, paddingBlock: Int = 128) throws(ResolutionError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(id)
        bytes.appendBigEndian(UInt16(0x0100))  // RD
        bytes.appendBigEndian(UInt16(1))       // one question
        bytes.appendBigEndian(UInt16(0))
        bytes.appendBigEndian(UInt16(0))
        bytes.appendBigEndian(UInt16(1))       // the OPT record
        bytes += try encodedName(name)
        bytes.appendBigEndian(type.rawValue)
        bytes.appendBigEndian(UInt16(1))       // class IN
        // OPT: root name, type 41, UDP size 1232, extended RCODE and flags 0, then the padding option.
        bytes += [0]
        bytes.appendBigEndian(DNSRecordType.opt.rawValue)
        bytes.appendBigEndian(UInt16(1232))
        bytes += [0, 0, 0, 0]
        let unpadded = bytes.count + 2 + 4
        let padding = paddingBlock > 0 ? (paddingBlock - unpadded % paddingBlock) % paddingBlock : 0
        bytes.appendBigEndian(UInt16(4 + padding))
        bytes.appendBigEndian(UInt16(12))      // option 12: padding
        bytes.appendBigEndian(UInt16(padding))
        bytes += [UInt8](repeating: 0, count: padding)
        return bytes
    }

    /// A name in wire form; refuses empty or over-long labels and names over 255 bytes.
    static func encodedName(_ name: String) throws(ResolutionError) -> [UInt8] {
        var trimmed = Substring(name)
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        var bytes: [UInt8] = []
        if !trimmed.isEmpty {
            for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
                let utf8 = Array(label.utf8)
                guard !utf8.isEmpty, utf8.count <= 63 else { throw .badQuery("\"\(name)\" has an empty or over-long label") }
                bytes.append(UInt8(utf8.count))
                bytes += utf8
            }
        }
        bytes.append(0)
        guard bytes.count <= 255 else { throw .badQuery("\"\(name)\" is longer than 255 bytes") }
        return bytes
    }

    private static func record(_ reader: inout DNSMessageReader) throws(ResolutionError) -> DNSRecord {
        let name = try reader.name()
        let type = DNSRecordType(rawValue: try reader.u16())
        _ = try reader.u16()  // class
        let ttl = try reader.u32()
        let length = Int(try reader.u16())
        let start = reader.offset
        let rdata = try reader.take(length)
        let data: DNSRecordData
        switch type {
        case .a, .aaaa:
            guard rdata.count == (type == .a ? 4 : 16) else { throw .badRecord("\(type) record of \(rdata.count) bytes") }
            data = .address(rdata)
        case .cname:
            let (target, end) = try DNSMessageReader.name(in: reader.bytes, at: start)
            guard end == start + length else { throw .badRecord("CNAME data does not end with its name") }
            data = .cname(target)
        case .https, .svcb:
            data = .serviceBinding(try ServiceBinding(rdata: rdata))
        default:
            data = .other(rdata)
        }
        // A negative TTL (top bit set) counts as zero (RFC 2181 §8).
        return DNSRecord(name: name, type: type, ttl: ttl & 0x8000_0000 != 0 ? 0 : ttl, data: data)
    }
}

extension ServiceBinding {
    /// Decodes SVCB/HTTPS RDATA (RFC 9460 §2.2): priority, target name (uncompressed), then
    /// parameters in strictly increasing key order.
    init(rdata: [UInt8]) throws(ResolutionError) {
        var reader = DNSMessageReader(rdata)
        priority = try reader.u16()
        target = try reader.name()
        alpn = []
        noDefaultALPN = false
        port = nil
        addressHints = []
        var lastKey: Int = -1
        while reader.remaining > 0 {
            let key = try reader.u16()
            guard Int(key) > lastKey else { throw .badRecord("SvcParamKeys out of order") }
            lastKey = Int(key)
            var value = DNSMessageReader(try reader.take(Int(try reader.u16())))
            switch key {
            case 1:  // alpn
                while value.remaining > 0 {
                    let id = try value.take(Int(try value.u8()))
                    guard !id.isEmpty else { throw .badRecord("empty ALPN id") }
                    alpn.append(String(decoding: id, as: UTF8.self))
                }
            case 2: noDefaultALPN = true
            case 3: port = try value.u16()
            case 4, 6:
                let size = key == 4 ? 4 : 16
                guard value.remaining > 0, value.remaining % size == 0 else { throw .badRecord("address hint of \(value.remaining) bytes") }
                while value.remaining > 0 { addressHints.append(try value.take(size)) }
            default: break
            }
        }
    }
}

extension DNSMessage {
    /// The records of `type` that answer `name`, following CNAMEs within the answer (at most 8),
    /// and the smallest TTL along that chain.
    public func records(answering name: String, type: DNSRecordType) -> (records: [DNSRecord], ttl: UInt32) {
        var current = Self.normalized(name)
        var ttl = UInt32.max
        for _ in 0...8 {
            let matching = answers.filter { $0.name == current && $0.type == type }
            if !matching.isEmpty {
                return (matching, min(ttl, matching.map(\.ttl).min() ?? 0))
            }
            guard let alias = answers.first(where: { $0.name == current && $0.type == .cname }), case .cname(let target) = alias.data else {
                break
            }
            ttl = min(ttl, alias.ttl)
            current = target
        }
        return ([], ttl == .max ? 0 : ttl)
    }

    /// Lower case, no final dot: how names are compared.
    static func normalized(_ name: String) -> String {
        var lowered = name.lowercased()
        if lowered.hasSuffix(".") { lowered.removeLast() }
        return lowered
    }
}
