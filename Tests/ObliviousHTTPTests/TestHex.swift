import Foundation

extension Data {
    /// Bytes from a hex string; whitespace is ignored so RFC hex dumps paste as they are.
    init(hex: String) {
        let digits = hex.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init)
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { preconditionFailure("bad hex \(hex)") }
            bytes.append(byte)
            index += 2
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
