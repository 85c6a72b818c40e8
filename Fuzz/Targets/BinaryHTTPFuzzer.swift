import Foundation
import ObliviousHTTP

/// Decodes the input as a Binary HTTP request and as a response, with the default limits and with
/// tight ones. Decoding never traps; whatever decodes encodes again in both framings, and that
/// encoding decodes to the same message.
@_cdecl("LLVMFuzzerTestOneInput")
public func binaryHTTPFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let tight = BinaryHTTPDecodingLimits(maxControlDataLength: 16, maxFieldSectionLength: 64, maxFieldCount: 4,
                                         maxContentLength: 64, maxInformationalResponses: 2)
    for limits in [BinaryHTTPDecodingLimits.default, tight] {
        if let request = try? BinaryHTTPRequest(decoding: input, limits: limits) {
            for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
                for truncating in [false, true] {
                    guard let encoded = try? request.encoded(framing: framing, omittingEmptyTrailingSections: truncating) else {
                        fuzzFailure("a decoded request does not encode: \(request)")
                    }
                    let again = try? BinaryHTTPRequest(decoding: encoded)
                    fuzzCheck(again == request, "request round trip differs")
                }
            }
        }
        if let response = try? BinaryHTTPResponse(decoding: input, limits: limits) {
            for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
                for truncating in [false, true] {
                    guard let encoded = try? response.encoded(framing: framing, omittingEmptyTrailingSections: truncating) else {
                        fuzzFailure("a decoded response does not encode: \(response)")
                    }
                    let again = try? BinaryHTTPResponse(decoding: encoded)
                    fuzzCheck(again == response, "response round trip differs")
                }
            }
        }
    }
    return 0
}
