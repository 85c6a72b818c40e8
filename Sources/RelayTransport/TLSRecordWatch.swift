import WireFormat

/// Watches the TLS records an origin sends through a tunnel (without decrypting them) to tell a
/// clean end from a cut one: a stream that stops inside a record, or whose last record is not
/// shaped like a close_notify alert, was truncated by whoever closed the tunnel. libcurl 7.88
/// takes an origin's TCP close without close_notify for a clean end, so this is the only place
/// a relay cutting a body without a length short can be caught.
struct TLSRecordWatch {
    /// What the stream looks like when it ends.
    enum Verdict: Equatable {
        /// Not TLS (an http:// origin), or nothing was received.
        case notTLS
        /// The last record is an alert (TLS 1.2) or an encrypted record the size of one (TLS 1.3).
        case endedWithAlert
        /// Ended inside a record or after an application-data record: truncated.
        case truncated
    }

    private enum Mode { case undecided, tls, other }
    private var mode = Mode.undecided
    private var header: [UInt8] = []
    private var remainingInRecord = 0
    private var lastType: UInt8 = 0
    private var lastLength = 0

    /// A TLS 1.3 close_notify: 2 alert bytes, 1 content-type byte and a 16-byte AEAD tag, unpadded.
    static let encryptedAlertLength = 19

    mutating func observe(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if mode == .other { return }
            if remainingInRecord > 0 {
                let take = min(remainingInRecord, bytes.count - index)
                remainingInRecord -= take
                index += take
                continue
            }
            header.append(bytes[index])
            index += 1
            if mode == .undecided {
                // Handshake record, TLS 1.x: the server's first bytes on a TLS connection.
                guard header.count < 2 || (header[0] == 0x16 && header[1] == 0x03) else { mode = .other; return }
                if header.count == 2 { mode = .tls }
            }
            if header.count == 5 {
                guard let record = try? Self.recordHeader(header) else { mode = .other; return }
                (lastType, lastLength) = record
                remainingInRecord = lastLength
                header.removeAll(keepingCapacity: true)
            }
        }
    }

    /// A record header's content type and length (RFC 8446 §5.1: type, legacy version, length).
    private static func recordHeader(_ header: [UInt8]) throws(WireFormatError) -> (type: UInt8, length: Int) {
        var fields = WireReader(header)
        let type = try fields.u8()
        _ = try fields.take(2)
        return (type, Int(try fields.u16()))
    }

    var verdict: Verdict {
        guard mode == .tls else { return .notTLS }
        if remainingInRecord > 0 || !header.isEmpty { return .truncated }
        if lastType == 0x15 { return .endedWithAlert }
        if lastType == 0x17 && lastLength == Self.encryptedAlertLength { return .endedWithAlert }
        return .truncated
    }
}
