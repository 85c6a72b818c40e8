@testable import LocalProxy

/// Plays a local client's bytes (the input after two control bytes) to the proxy's HTTP request
/// machine, in chunks (the first byte sets the chunk size; the second's low bit makes a login
/// required). Whatever arrives: a refusal always answers with an HTTP/1.1 status line; a tunnel
/// opens only for a target made of host-name bytes with a port, as the logged-in user when a
/// login is required; a forwarded request goes out in origin form, closing, with no proxy
/// header; once done, nothing more is answered.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpProxyRequestFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let chunkSize = (Int(bytes[0]) + 1) * 16
    var credentials = ProxyCredentials()
    if bytes[1] & 1 == 1 { credentials.add(username: "bob", password: "pw") }
    let stream = Array(bytes.dropFirst(2))
    var parser = HTTPProxyRequestParser(credentials: credentials)
    var done = false
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunkSize)
        let step = parser.receive(Array(stream[offset..<end]))
        offset = end
        if done {
            fuzzCheck(step == ProxyHandshakeStep(next: .wait), "a step after the head was done: \(step)")
            continue
        }
        switch step.next {
        case .wait:
            fuzzCheck(step.reply.isEmpty, "an answer while waiting")
        case .close:
            done = true
            fuzzCheck(step.reply.starts(with: Array("HTTP/1.1 ".utf8)), "a refusal without a status line")
        case .open(let request):
            done = true
            fuzzCheck(step.reply.isEmpty, "an answer before the tunnel opened")
            fuzzCheck(!request.host.isEmpty && request.host.utf8.allSatisfy(TargetHost.allows) && request.port > 0, "target \(request.host.debugDescription)")
            fuzzCheck(request.identity == (credentials.required ? "bob" : nil), "opened as \(String(describing: request.identity))")
            if request.dialect == .httpForward {
                let text = String(decoding: request.firstBytes, as: UTF8.self)
                let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
                fuzzCheck(head.split(separator: " ", maxSplits: 2).dropFirst().first?.hasPrefix("/") == true, "not origin form: \(head.debugDescription)")
                fuzzCheck(head.hasSuffix("\r\nConnection: close"), "forwarded without Connection: close")
                fuzzCheck(!head.lowercased().contains("\r\nproxy-"), "a proxy header was forwarded")
            }
        }
    }
    return 0
}
