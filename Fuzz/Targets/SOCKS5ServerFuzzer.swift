@testable import LocalProxy

/// Plays a local client's bytes (the input after two control bytes) to the proxy's SOCKS5
/// server machine, in chunks (the first byte sets the chunk size; the second's low bit makes a
/// login required). Whatever arrives: a tunnel opens only for a target made of host-name bytes,
/// only after the login was accepted when one is required (and then as that user), its first
/// bytes are the input's own tail; once done, nothing more is answered. The same bytes read as a
/// SOCKS5 UDP datagram header (`SOCKS5UDPDatagram`) name a host-name target and encode back to
/// the same datagram (an address literal in its canonical spelling).
@_cdecl("LLVMFuzzerTestOneInput")
public func socks5ServerFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let chunkSize = Int(bytes[0]) + 1
    var credentials = ProxyCredentials()
    if bytes[1] & 1 == 1 { credentials.add(username: "alice", password: "s3cret") }
    let stream = Array(bytes.dropFirst(2))
    var machine = SOCKS5ServerHandshake(credentials: credentials)
    var replies: [UInt8] = []
    var done = false
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunkSize)
        let step = machine.receive(Array(stream[offset..<end]))
        offset = end
        if done {
            fuzzCheck(step == ProxyHandshakeStep(next: .wait), "a step after the handshake was done: \(step)")
            continue
        }
        replies += step.reply
        switch step.next {
        case .wait:
            break
        case .close:
            done = true
        case .open(let request):
            done = true
            fuzzCheck(!request.host.isEmpty && request.host.utf8.allSatisfy(TargetHost.allows), "target \(request.host.debugDescription)")
            fuzzCheck(stream[..<end].suffix(request.firstBytes.count).elementsEqual(request.firstBytes), "first bytes are not the input's tail")
            if credentials.required {
                fuzzCheck(request.identity == "alice", "opened as \(String(describing: request.identity))")
                fuzzCheck(replies == [5, 2, 1, 0], "opened after the replies \(replies)")
            } else {
                fuzzCheck(request.identity == nil && replies == [5, 0], "opened after the replies \(replies)")
            }
        }
    }
    if let datagram = SOCKS5UDPDatagram(parsing: stream) {
        fuzzCheck(!datagram.host.isEmpty && datagram.host.utf8.allSatisfy(TargetHost.allows), "datagram target \(datagram.host.debugDescription)")
        // A name that is an address literal in another spelling ("0:0::1") comes back as the
        // address: the same target, in its one canonical form from then on.
        guard let again = SOCKS5UDPDatagram(parsing: datagram.encoded) else { fuzzFailure("\(datagram) encodes to bytes that do not read") }
        fuzzCheck(again.port == datagram.port && again.payload == datagram.payload, "\(datagram) read back as \(again)")
        fuzzCheck(SOCKS5UDPDatagram(parsing: again.encoded) == again, "\(again) does not read back the same")
    }
    return 0
}
