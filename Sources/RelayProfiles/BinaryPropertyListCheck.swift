import Foundation

/// Vets a binary property list (`bplist00`) before Foundation parses it. A profile holds only
/// dictionaries, arrays, strings, data, numbers, booleans and dates; sets and UIDs never occur
/// in one, and Foundation on Linux crashes bridging some hostile sets (found by fuzzing), so an
/// object table with any other type, or one that points outside the file, is refused here.
enum BinaryPropertyListCheck {
    /// Why `data` is refused, or nil when every object has a type a profile can hold.
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32 else { return "truncated binary property list" }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize),
              let count = integer(bytes, at: trailer + 8, size: 8), let table = integer(bytes, at: trailer + 24, size: 8),
              count > 0, table >= 8, table <= trailer, count <= (trailer - table) / offsetSize else {
            return "malformed binary property list trailer"
        }
        for index in 0..<count {
            guard let offset = integer(bytes, at: table + index * offsetSize, size: offsetSize), offset >= 8, offset < table else {
                return "binary property list object \(index) lies outside the object table"
            }
            switch bytes[offset] >> 4 {
            case 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xA, 0xD: continue
            default: return String(format: "binary property list object of type 0x%X, which no profile holds", bytes[offset] >> 4)
            }
        }
        return nil
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits in the input and an Int.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= bytes.count - offset else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] {
            guard value >> 56 == 0 else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return value <= UInt64(Int.max >> 8) ? Int(value) : nil
    }
}
