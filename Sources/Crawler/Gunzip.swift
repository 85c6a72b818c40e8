import Foundation
internal import CZlib

/// Inflates gzip data (RFC 1952), such as a `sitemap.xml.gz` served as application/gzip (which
/// libcurl leaves as it is: it only decodes a Content-Encoding).
enum Gunzip {
    /// Whether `data` starts with the gzip magic bytes.
    static func isGzip(_ data: Data) -> Bool { data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B }

    /// The inflated bytes, or nil when `data` is not valid gzip or inflates past `limit` bytes
    /// (a sitemap may be 50 MB uncompressed; a bomb is refused, not inflated).
    static func inflate(_ data: Data, limit: Int = 50 << 20) -> Data? {
        var stream = z_stream()
        guard rf_inflateInit2(&stream, 15 + 16) == Z_OK else { return nil }  // 15 + 16: a gzip wrapper, not zlib
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let input = [UInt8](data)
        return input.withUnsafeBufferPointer { source -> Data? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if output.count > limit { return nil }
                switch status {
                case Z_STREAM_END: return output
                case Z_OK where stream.avail_in > 0 || stream.avail_out == 0: continue
                default: return nil  // truncated or corrupt
                }
            }
        }
    }
}
