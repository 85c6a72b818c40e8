import Foundation

/// The RFC test vectors in Vectors/, as extracted from the RFC sources (Vectors/README.md).
enum TestVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func object(_ name: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func list(_ name: String) throws -> [[String: String]] {
        try JSONDecoder().decode([[String: String]].self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }
}

/// Bytes from hex; whitespace is ignored so RFC dumps paste as they are.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

private extension UInt8 {
    var isWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
