@testable import RelayTransport

/// Feeds CONNECT-UDP stream bytes to the capsule decoder in chunks whose sizes come from the
/// input itself, so capsules split across reads are exercised. Payloads must come out in order
/// and never be longer than the bytes fed; the same bytes fed at once must give the same payloads.
@_cdecl("LLVMFuzzerTestOneInput")
public func capsuleCodecFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())
    let chunkSize = Int(first) + 1

    var whole = ConnectUDPCapsuleCodec()
    let wholeResult: [[UInt8]]?
    do { wholeResult = try whole.decode(stream) } catch { wholeResult = nil }

    var chunked = ConnectUDPCapsuleCodec()
    var chunkedResult: [[UInt8]]? = []
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunkSize)
        do { chunkedResult? += try chunked.decode(Array(stream[offset..<end])) } catch { chunkedResult = nil; break }
        offset = end
    }
    fuzzCheck((wholeResult == nil) == (chunkedResult == nil), "only one of the two decodings failed")
    if let wholeResult, let chunkedResult {
        fuzzCheck(wholeResult == chunkedResult, "chunked decoding differs from decoding at once")
        fuzzCheck(wholeResult.reduce(0) { $0 + $1.count } <= stream.count, "payloads longer than the input")
    }
    // Every payload encodes back to a capsule that decodes to itself.
    for payload in wholeResult ?? [] {
        var codec = ConnectUDPCapsuleCodec()
        let capsule = payload.withUnsafeBytes { ConnectUDPCapsuleCodec.encode($0) }
        fuzzCheck((try? codec.decode(capsule)) == [payload], "encode/decode round trip failed")
    }
    return 0
}
