import Foundation
import ObliviousHTTP

/// Parses the input as one key configuration and as an `application/ohttp-keys` list. A parsed
/// configuration serializes back to the very bytes it came from; a client built on any parsed
/// configuration encapsulates a request or throws, never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func ohttpKeyConfigFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    var configs: [OHTTPKeyConfig] = []
    if let config = try? OHTTPKeyConfig(parsing: input) {
        fuzzCheck(config.serialized() == input, "a key configuration does not serialize back to its input")
        configs.append(config)
    }
    if let list = try? OHTTPKeyConfig.parseList(input) {
        fuzzCheck(!list.isEmpty, "an empty list parsed")
        for config in list {
            fuzzCheck((try? OHTTPKeyConfig(parsing: config.serialized())) == config, "list entry round trip differs")
        }
        fuzzCheck((try? OHTTPKeyConfig.parseList(OHTTPKeyConfig.serializeList(list))) == list, "list round trip differs")
        configs += list.prefix(2)
    }
    for config in configs {
        guard let client = try? OHTTPClient(keyConfig: config) else { continue }
        if let ephemeral = try? HPKE.PrivateKey(derivedFrom: Data("fuzz".utf8), kem: config.kem),
           let sealed = try? client.encapsulate(Data("GET".utf8), ephemeralKey: ephemeral) {
            fuzzCheck(sealed.encapsulatedRequest.first == config.keyID, "the request names another key")
        }
    }
    return 0
}
