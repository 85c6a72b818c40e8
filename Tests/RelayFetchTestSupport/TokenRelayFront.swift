import Foundation

/// A relay that admits a CONNECT only with a bearer token from the test identity provider
/// (Samples/servers/hostile/token_relay_front.py), in front of relay B's plain squid port: it
/// checks each token by RFC 7662 introspection at https://idp.test (through relay B), lets
/// CONNECTs to the provider itself (`idp.test:443`) through without a token, and forwards the
/// rest to relay B with relay B's own token. Origins therefore see relay B's address, 127.0.0.12.
/// It presents the relay certificate on 127.0.4.1, which its name does not cover: clients
/// trust it by its pinned key (`pin`).
public final class TokenRelayFront {
    public static let host = "127.0.4.1"
    public let server: HostileServer
    public var url: URL { URL(string: "https://\(Self.host):\(server.port)")! }

    /// `refuseValid`: how many CONNECTs with a valid token get 407 all the same (-1: every one).
    /// `openTargets`: authorities admitted without a token.
    public init(refuseValid: Int = 0, openTargets: [String] = ["idp.test:443"]) throws {
        server = try HostileServer(script: "token_relay_front.py", host: Self.host, certificate: "relay", arguments: [
            "--upstream", "127.0.0.12:3128", "--upstream-token", TestServers.relayBToken,
            "--introspect-client", "\(IdentityProvider.serviceClientID):\(IdentityProvider.serviceClientSecret)",
            "--refuse-valid", String(refuseValid),
        ] + openTargets.flatMap { ["--open-target", $0] })
    }

    /// `--relay-pin` for the front: the SHA-256 of the relay certificate's key.
    public static func pin() throws -> String { "sha256//" + (try TestServers.relayPublicKeySHA256()).base64EncodedString() }

    /// One CONNECT the front decided on.
    public struct Decision: Equatable {
        /// VERIFIED, REFUSED or OPEN.
        public let kind: String
        /// VERIFIED: the token's subject; REFUSED: why; OPEN: "had-token=True" or "had-token=False".
        public let detail: String
        public let peer: String
        public let authority: String
        /// The bearer token it carried ("" for OPEN lines, which log only whether there was one).
        public let token: String
    }

    /// Every CONNECT so far; throws when the front's log is missing.
    public func decisions() throws -> [Decision] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            if ["VERIFIED", "REFUSED"].contains(fields[0]), fields.count == 5 {
                return Decision(kind: fields[0], detail: fields[1], peer: fields[2], authority: fields[3], token: fields[4])
            }
            if fields[0] == "OPEN", fields.count == 4 {
                return Decision(kind: "OPEN", detail: fields[3], peer: fields[1], authority: fields[2], token: "")
            }
            return nil
        }
    }

    /// A client credentials scenario for the provider's service client, written to a temporary
    /// file; `maximumTokenLifetime` when given, `issuer` to point it elsewhere.
    public static func scenarioFile(maximumTokenLifetime: Double? = nil, tokenEndpoint: String? = nil) throws -> String {
        var scenario: [String: Any] = [
            "name": "relay token", "grant": "client_credentials", "scopes": ["read"],
            "client": ["id": IdentityProvider.serviceClientID, "secret": IdentityProvider.serviceClientSecret, "auth": "client_secret_basic"],
        ]
        if let tokenEndpoint {
            scenario["endpoints"] = ["issuer": tokenEndpoint, "token": tokenEndpoint]
        } else {
            scenario["issuer"] = IdentityProvider.issuer
        }
        if let maximumTokenLifetime { scenario["maximumTokenLifetime"] = maximumTokenLifetime }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relay-token-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        return file.path
    }
}
