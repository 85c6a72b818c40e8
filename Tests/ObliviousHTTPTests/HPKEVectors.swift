import Foundation

/// One base-mode suite of HPKE known answers, in the JSON shape of Vectors/*.json.
struct HPKEVector: Decodable {
    struct Encryption: Decodable {
        let seq: UInt64
        let pt: String
        let aad: String
        let nonce: String
        let ct: String
    }

    struct Export: Decodable {
        let exporterContext: String
        let length: Int
        let exportedValue: String

        enum CodingKeys: String, CodingKey {
            case exporterContext = "exporter_context"
            case length = "L"
            case exportedValue = "exported_value"
        }
    }

    let name: String
    let mode: Int
    let kemID: UInt16
    let kdfID: UInt16
    let aeadID: UInt16
    let info: String
    let ikmE: String
    let pkEm: String
    let skEm: String
    let ikmR: String
    let pkRm: String
    let skRm: String
    let enc: String
    let sharedSecret: String
    let key: String?
    let baseNonce: String
    let exporterSecret: String
    let encryptions: [Encryption]
    let exports: [Export]

    enum CodingKeys: String, CodingKey {
        case name, mode, info, ikmE, pkEm, skEm, ikmR, pkRm, skRm, enc, key, encryptions, exports
        case kemID = "kem_id", kdfID = "kdf_id", aeadID = "aead_id"
        case sharedSecret = "shared_secret", baseNonce = "base_nonce", exporterSecret = "exporter_secret"
    }

    private struct File: Decodable {
        let source: String
        let suites: [HPKEVector]
    }

    /// The suites in Vectors/`name`, found next to this source file.
    static func load(_ name: String, filePath: String = #filePath) throws -> [HPKEVector] {
        let url = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Vectors/\(name)")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).suites
    }
}
