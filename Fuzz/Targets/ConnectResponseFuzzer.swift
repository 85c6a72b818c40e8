@testable import RelayTransport

/// Feeds a relay's CONNECT answer to the parser at once and in chunks (the first input byte sets
/// the chunk size). Both must reach the same verdict; a tunnel opens only on a 2xx status, its
/// first tunnelled bytes are the input's own tail, and no verdict carries a status outside
/// 100...599.
@_cdecl("LLVMFuzzerTestOneInput")
public func connectResponseFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())

    var whole = ConnectResponseParser()
    let wholeVerdict = whole.feed(stream)

    var chunked = ConnectResponseParser()
    var chunkedVerdict = ConnectResponseParser.Verdict.needMore
    var offset = 0
    let chunkSize = Int(first) + 1
    while offset < stream.count, chunkedVerdict == .needMore {
        let end = min(stream.count, offset + chunkSize)
        chunkedVerdict = chunked.feed(Array(stream[offset..<end]))
        offset = end
    }

    switch (wholeVerdict, chunkedVerdict) {
    case let (.established(status, leftover), .established(chunkedStatus, chunkedLeftover)):
        fuzzCheck(status == chunkedStatus, "chunked status differs")
        fuzzCheck((200..<300).contains(status), "a tunnel opened on status \(status)")
        fuzzCheck(stream.suffix(leftover.count).elementsEqual(leftover), "leftover is not the input's tail")
        fuzzCheck(leftover.starts(with: chunkedLeftover), "chunked leftover is not a prefix of the whole leftover")
    case let (.refused(status, _), .refused(chunkedStatus, _)):
        fuzzCheck(status == chunkedStatus, "chunked status differs")
        fuzzCheck((300..<600).contains(status), "refused with status \(status), which is not a final non-2xx status")
    case (.malformed, .malformed), (.needMore, .needMore):
        break
    default:
        fuzzFailure("verdicts differ: at once \(wholeVerdict), in chunks \(chunkedVerdict)")
    }
    return 0
}
