/// A SOCKS5 UDP request header (RFC 1928 §7) around one datagram, without any I/O: RSV(2),
/// FRAG, ATYP, DST.ADDR, DST.PORT, DATA. Fragments (FRAG other than 0) are not supported and
/// read as nil, as RFC 1928 lets a server that does not reassemble drop them.
package struct SOCKS5UDPDatagram: Sendable, Equatable {
    package var host: String
    package var port: UInt16
    package var payload: [UInt8]

    package init(host: String, port: UInt16, payload: [UInt8]) {
        self.host = host
        self.port = port
        self.payload = payload
    }

    /// Reads a datagram a client sent; nil when it is malformed, fragmented or names no host.
    package init?(parsing bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0, bytes[1] == 0, bytes[2] == 0 else { return nil }
        let addressLength: Int
        switch bytes[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03:
            guard bytes.count >= 5 else { return nil }
            addressLength = 1 + Int(bytes[4])
        default: return nil
        }
        guard bytes.count >= 4 + addressLength + 2,
              let host = SOCKS5ServerHandshake.host(type: bytes[3], Array(bytes[4..<(4 + addressLength)])) else { return nil }
        self.host = host
        port = UInt16(bytes[4 + addressLength]) << 8 | UInt16(bytes[5 + addressLength])
        payload = Array(bytes[(6 + addressLength)...])
    }

    /// The datagram as sent back to the client, its source named as the client named it.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = [0, 0, 0]
        if let address = TargetHost.addressBytes(host) {
            bytes += [address.count == 4 ? 0x01 : 0x04] + address
        } else {
            bytes += [0x03, UInt8(min(host.utf8.count, 255))] + Array(host.utf8.prefix(255))
        }
        return bytes + [UInt8(port >> 8), UInt8(port & 0xFF)] + payload
    }
}
