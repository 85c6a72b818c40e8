import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// Relay trust, one set of cases for both TLS stacks: relay A serves HTTP/2 over TCP (nghttpx,
/// OpenSSL on our side) and HTTP/3 over QUIC (aioquic, GnuTLS on our side) on 127.0.0.11:4433,
/// with the same certificate from the test CA.
final class TrustPolicyTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private static let stacks: [(name: String, relayProtocol: RelayProtocol)] = [("OpenSSL over TCP", .http2), ("GnuTLS over QUIC", .http3)]

    private func tunnel(_ relayProtocol: RelayProtocol, trust: TLSTrust) -> HTTP3TestChain.Outcome {
        let session = HTTP3TestChain()
        defer { session.end() }
        var relay = HTTP3RelayTests.relay(trust: trust)
        relay.relayProtocol = relayProtocol
        let outcome = session.tunnel(through: [relay])
        if case .success(let (tunnel, _)) = outcome { session.loop.execute { tunnel.close() } }
        return outcome
    }

    func testTheTestCAIsTrustedAndTheSystemStoreIsNot() throws {
        for stack in Self.stacks {
            XCTAssertNoThrow(try tunnel(stack.relayProtocol, trust: TLSTrust(caFile: TestServers.caFile)).get(), stack.name)
            let result = tunnel(stack.relayProtocol, trust: .system)
            guard case .failure(let error) = result, case .tls(let reason) = error.cause else {
                XCTFail("\(stack.name): expected a TLS failure, got \(result)")
                continue
            }
            XCTAssertEqual(error.hop.index, 1, stack.name)
            XCTAssertTrue(reason.contains("certificate verify failed"), "\(stack.name): \(reason)")
        }
    }

    func testAPinnedKeyReplacesTheChainAndAWrongPinFails() throws {
        let pin = Array(try TestServers.relayPublicKeySHA256())
        for stack in Self.stacks {
            XCTAssertNoThrow(try tunnel(stack.relayProtocol, trust: TLSTrust(pinnedPublicKeys: [pin])).get(), "\(stack.name): the right pin, no CA")
            let wrong = TLSTrust(caFile: TestServers.caFile, pinnedPublicKeys: [[UInt8](repeating: 7, count: 32)])
            let result = tunnel(stack.relayProtocol, trust: wrong)
            guard case .failure(let error) = result else {
                XCTFail("\(stack.name): a wrong pin gave a tunnel although the CA trusts the relay")
                continue
            }
            XCTAssertEqual(error.cause, .publicKeyPinMismatch, stack.name)
            XCTAssertEqual(error.hop.index, 1, stack.name)
        }
    }

    func testAMissingCAFileIsASetupErrorNamingIt() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-ca-\(UUID().uuidString).pem").path
        for stack in Self.stacks {
            let result = tunnel(stack.relayProtocol, trust: TLSTrust(caFile: missing))
            guard case .failure(let error) = result, case .tls(let reason) = error.cause else {
                XCTFail("\(stack.name): expected a TLS setup failure, got \(result)")
                continue
            }
            XCTAssertTrue(reason.contains("cannot load CA \(missing)"), "\(stack.name): \(reason)")
        }
    }

    // MARK: the policy alone

    func testThePolicyFollowsTheTrustSettings() {
        XCTAssertEqual(TLSTrustPolicy(.system).anchors, .systemStore)
        XCTAssertEqual(TLSTrustPolicy(TLSTrust(caFile: "/ca.pem")).anchors, .file("/ca.pem"))
        XCTAssertTrue(TLSTrustPolicy(TLSTrust(caFile: "/ca.pem")).verifiesChain)
        let pinned = TLSTrustPolicy(TLSTrust(caFile: "/ca.pem", pinnedPublicKeys: [[1, 2, 3]]))
        XCTAssertNil(pinned.anchors, "pins replace the chain check, CA file or not")
        XCTAssertFalse(pinned.verifiesChain)
        XCTAssertNil(pinned.checkPeer(keyDigest: [1, 2, 3]))
        XCTAssertEqual(pinned.checkPeer(keyDigest: [9]), .publicKeyPinMismatch)
        XCTAssertEqual(pinned.checkPeer(keyDigest: nil), .publicKeyPinMismatch, "an unreadable key matches no pin")
        XCTAssertNil(TLSTrustPolicy(.system).checkPeer(keyDigest: nil), "without pins the handshake's check stands")
        XCTAssertEqual(TLSTrustPolicy(TLSTrust(caFile: "/x.pem")).loadFailure("gone").reason, "cannot load CA /x.pem: gone")
        XCTAssertEqual(TLSTrustPolicy(.system).loadFailure("gone").reason, "cannot load CA system store: gone")
    }
}
