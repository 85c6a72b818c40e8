@testable import RelayTransport

/// Plays a SOCKS5 server's answers (the input after two control bytes) to the handshake, in chunks
/// (the first byte sets the chunk size; the second's low bit gives the client credentials, the
/// next whether a relay follows the hop). Whatever arrives: the client only ever sends what it
/// owes at that step; a tunnel opens only after a reply with version 5 and REP 0, its first
/// bytes being the input's own tail; a failure names the hop or, for "could not reach it", the
/// relay after it; once done, nothing more happens.
@_cdecl("LLVMFuzzerTestOneInput")
public func socks5HandshakeFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let chunkSize = Int(bytes[0]) + 1
    let credentials = bytes[1] & 1 == 1 ? RelayCredentials(username: "alice", password: "s3cret") : nil
    let hop = HopDescription(index: 1, endpoint: "127.0.0.61:1080", protocolName: "SOCKS5")
    let nextHop = bytes[1] & 2 == 2 ? HopDescription(index: 2, endpoint: "relay.test:443", protocolName: "HTTPS") : nil
    let stream = Array(bytes.dropFirst(2))
    guard var machine = try? SOCKS5Handshake(target: TunnelTarget(host: "origin.test", port: 443), credentials: credentials, hop: hop, nextHop: nextHop) else {
        fuzzFailure("a valid target and credentials were refused")
    }
    let greeting = machine.start()
    fuzzCheck(greeting == (credentials == nil ? [5, 1, 0] : [5, 2, 0, 2]), "greeting \(greeting)")
    let request: [UInt8] = [5, 1, 0, 3, 11] + Array("origin.test".utf8) + [0x01, 0xBB]
    var sentRequest = false
    var offset = 0
    var done = false
    while offset < stream.count {
        let end = min(stream.count, offset + chunkSize)
        let step = machine.receive(Array(stream[offset..<end]))
        offset = end
        if done {
            guard case .needMore = step else { fuzzFailure("a step after the handshake was done: \(step)") }
            continue
        }
        switch step {
        case .needMore:
            break
        case .send(let message):
            if message == request {
                fuzzCheck(!sentRequest, "the CONNECT was sent twice")
                sentRequest = true
            } else {
                fuzzCheck(credentials != nil && !sentRequest && message.first == 1, "sent \(message), owed nothing of the kind")
            }
        case .established(let leftover):
            fuzzCheck(sentRequest, "a tunnel opened before the CONNECT was sent")
            fuzzCheck(stream[..<end].suffix(leftover.count).elementsEqual(leftover), "leftover is not the input's tail")
            done = true
        case .failed(let error):
            fuzzCheck(error.hop == hop || (nextHop != nil && error.hop == nextHop), "a failure names \(error.hop)")
            done = true
        }
    }
    return 0
}
