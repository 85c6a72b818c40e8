/// HTTP/3 application error codes (RFC 9114 §8.1) as users read them in errors.
enum HTTP3ErrorCode {
    static let noError: UInt64 = 0x100
    static let internalError: UInt64 = 0x102
    static let requestRejected: UInt64 = 0x10b
    static let requestCancelled: UInt64 = 0x10c

    static func name(_ code: UInt64) -> String {
        let names: [UInt64: String] = [
            0x100: "H3_NO_ERROR", 0x101: "H3_GENERAL_PROTOCOL_ERROR", 0x102: "H3_INTERNAL_ERROR",
            0x103: "H3_STREAM_CREATION_ERROR", 0x104: "H3_CLOSED_CRITICAL_STREAM", 0x105: "H3_FRAME_UNEXPECTED",
            0x106: "H3_FRAME_ERROR", 0x107: "H3_EXCESSIVE_LOAD", 0x108: "H3_ID_ERROR", 0x109: "H3_SETTINGS_ERROR",
            0x10a: "H3_MISSING_SETTINGS", 0x10b: "H3_REQUEST_REJECTED", 0x10c: "H3_REQUEST_CANCELLED",
            0x10d: "H3_REQUEST_INCOMPLETE", 0x10e: "H3_MESSAGE_ERROR", 0x10f: "H3_CONNECT_ERROR", 0x110: "H3_VERSION_FALLBACK",
        ]
        return "\(names[code] ?? "error") 0x\(String(code, radix: 16))"
    }
}
