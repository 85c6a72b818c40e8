import Foundation
import RelayFetch
import RelayProfiles

/// Reads the input as a `.mobileconfig` (XML or binary property list, or CMS-signed). It is an
/// error naming a key path or a profile whose every relay has an https endpoint and whose relay
/// configurations can be built.
@_cdecl("LLVMFuzzerTestOneInput")
public func profileFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    guard let profile = try? ManagedRelayProfileReader.read(input, signerCAFile: ProfileFuzzerTrust.caFile) else { return 0 }
    fuzzCheck(!profile.relayPayloads.isEmpty, "a profile without relay payloads")
    for payload in profile.relayPayloads {
        fuzzCheck(!payload.relays.isEmpty, "a relay payload without relays")
        for relay in payload.relays {
            for url in [relay.http3RelayURL, relay.http2RelayURL].compactMap({ $0 }) {
                fuzzCheck(url.scheme?.lowercased() == "https" && url.host?.isEmpty == false, "relay URL \(url)")
            }
        }
    }
    _ = profile.proxyConfigurations
    return 0
}

/// The sample signer's CA, so signed seeds get past signature checking.
enum ProfileFuzzerTrust {
    static let caFile: String? = ProcessInfo.processInfo.environment["FUZZ_PROFILE_CA"]
}
