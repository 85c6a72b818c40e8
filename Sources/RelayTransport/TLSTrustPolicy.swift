/// How a relay's certificate is judged, the one policy both TLS stacks follow: OpenSSL
/// (`TLSContext`, relays over TCP) and GnuTLS (`QUICTLSSession`, relays over QUIC). Either the
/// handshake verifies the chain against `anchors` and the relay's name or address, or, with
/// pinned keys, the chain is not consulted and the key is checked once the handshake is done.
/// The client identity, if any, is offered when the relay asks for one. libcurl follows it too
/// for a relay it reaches itself (RelayFetch's `CurlProxyRoute`).
package struct TLSTrustPolicy: Sendable, Equatable {
    /// Where the handshake finds the trusted CAs.
    package enum Anchors: Sendable, Equatable {
        case systemStore
        case file(String)
    }

    /// The CAs to verify the chain with; nil when pinned keys replace the chain check.
    package let anchors: Anchors?
    /// SHA-256 digests of the acceptable SubjectPublicKeyInfo DER encodings; empty: any key.
    package let pins: [[UInt8]]
    package let clientIdentity: TLSClientIdentity?

    package init(_ trust: TLSTrust) {
        pins = trust.pinnedPublicKeys
        anchors = !pins.isEmpty ? nil : trust.caFile.map(Anchors.file) ?? .systemStore
        clientIdentity = trust.clientIdentity
    }

    /// True when the handshake itself verifies the chain and the name.
    package var verifiesChain: Bool { anchors != nil }

    /// After the handshake: nil when the relay may be used, else why not. `keyDigest` is the
    /// SHA-256 of the relay's SubjectPublicKeyInfo (nil when it cannot be read).
    func checkPeer(keyDigest: [UInt8]?) -> RelayError.Cause? {
        guard !pins.isEmpty else { return nil }
        guard let keyDigest, pins.contains(keyDigest) else { return .publicKeyPinMismatch }
        return nil
    }

    /// The error for anchors the TLS stack could not load (`detail`: the stack's own words).
    func loadFailure(_ detail: String) -> TLSSetupError {
        let place: String
        switch anchors {
        case .file(let path)?: place = path
        case .systemStore?, nil: place = "system store"
        }
        return TLSSetupError(reason: "cannot load CA \(place): \(detail)")
    }
}
