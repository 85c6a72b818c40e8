internal import CBrotli
internal import CZlib

/// Decodes a response body as it arrives, for routes libcurl does not carry (HTTP/3 to the
/// origin), as libcurl decodes on TCP: `gzip` (and `x-gzip`), `deflate` (zlib's wrapper, or the
/// raw stream some servers send, as libcurl also accepts) and `br`, several in the order the
/// origin applied them. Other codings pass through as they came. Owns the zlib and brotli states.
final class ContentDecoder {
    /// What a request asks for when it can take an encoded answer (libcurl's, less zstd, which this side cannot decode).
    static let acceptEncoding = "deflate, gzip, br"

    /// The origin's bytes could not be decoded, or one piece decoded past `atMost` (`tooLarge`).
    struct Failure: Error, CustomStringConvertible {
        let coding: String
        var tooLarge = false
        var description: String { tooLarge ? "the origin's \(coding) body decodes past its size limit" : "the origin's \(coding) body could not be decoded" }
    }

    private let stages: [Stage]

    /// A decoder for a `Content-Encoding` value; nil when it names no coding this side decodes.
    init?(contentEncoding: String) {
        let codings = contentEncoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let stages = codings.reversed().compactMap(Stage.init(coding:))
        guard !stages.isEmpty else { return nil }
        self.stages = stages
    }

    /// The decoded form of the next piece of the body; decoding stops with `tooLarge` once the
    /// piece's output passes `atMost` (a body's size limit holds before a small piece expands in memory).
    func decode(_ bytes: [UInt8], atMost: Int = .max) throws(Failure) -> [UInt8] {
        var piece = bytes
        for stage in stages { piece = try stage.decode(piece, atMost: atMost) }
        return piece
    }

    private final class Stage {
        private enum Kind { case zlib(windowBits: Int32), brotli }
        private let coding: String
        private let kind: Kind
        private var zstream = z_stream()
        private var brotli: OpaquePointer?
        private var started = false
        private var ended = false
        /// Bytes fed so far, while a `deflate` stream may still turn out to be raw.
        private var fed = 0

        init?(coding: String) {
            self.coding = coding
            switch coding {
            case "gzip", "x-gzip": kind = .zlib(windowBits: 15 + 16)
            case "deflate": kind = .zlib(windowBits: 15)
            case "br": kind = .brotli
            default: return nil
            }
        }

        deinit {
            if started, case .zlib = kind { inflateEnd(&zstream) }
            if let brotli { BrotliDecoderDestroyInstance(brotli) }
        }

        func decode(_ input: [UInt8], atMost: Int) throws(Failure) -> [UInt8] {
            guard !input.isEmpty, !ended else { return [] }
            switch kind {
            case .zlib(let windowBits): return try inflate(input, windowBits: windowBits, atMost: atMost)
            case .brotli: return try unbrotli(input, atMost: atMost)
            }
        }

        private func inflate(_ input: [UInt8], windowBits: Int32, atMost: Int) throws(Failure) -> [UInt8] {
            if !started {
                guard rf_inflateInit2(&zstream, windowBits) == Z_OK else { throw Failure(coding: coding) }
                started = true
            }
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            var status = Z_OK
            input.withUnsafeBufferPointer { source in
                zstream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                zstream.avail_in = uInt(source.count)
                repeat {
                    status = chunk.withUnsafeMutableBufferPointer { buffer in
                        zstream.next_out = buffer.baseAddress
                        zstream.avail_out = uInt(buffer.count)
                        return CZlib.inflate(&zstream, Z_NO_FLUSH)
                    }
                    output.append(contentsOf: chunk[0..<(chunk.count - Int(zstream.avail_out))])
                } while status == Z_OK && (zstream.avail_in > 0 || zstream.avail_out == 0) && output.count <= atMost
                zstream.next_in = nil
            }
            // A "deflate" body that is not zlib-wrapped is the raw stream: start over as one (libcurl does too).
            if status == Z_DATA_ERROR, case .zlib(15) = kind, fed == 0, output.isEmpty {
                inflateEnd(&zstream)
                guard rf_inflateInit2(&zstream, -15) == Z_OK else { throw Failure(coding: coding) }
                fed = 1
                return try inflate(input, windowBits: -15, atMost: atMost)
            }
            if output.count > atMost { throw Failure(coding: coding, tooLarge: true) }
            fed += input.count
            switch status {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: break
            default: throw Failure(coding: coding)
            }
            return output
        }

        private func unbrotli(_ input: [UInt8], atMost: Int) throws(Failure) -> [UInt8] {
            if brotli == nil { brotli = BrotliDecoderCreateInstance(nil, nil, nil) }
            guard let brotli else { throw Failure(coding: coding) }
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            var result = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT
            input.withUnsafeBufferPointer { source in
                var availableIn = source.count
                var nextIn = source.baseAddress
                while result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && output.count <= atMost {
                    let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                        var availableOut = buffer.count
                        var nextOut = buffer.baseAddress
                        result = BrotliDecoderDecompressStream(brotli, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                        return buffer.count - availableOut
                    }
                    output.append(contentsOf: chunk[0..<produced])
                }
            }
            if output.count > atMost { throw Failure(coding: coding, tooLarge: true) }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS: ended = true
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: break
            default: throw Failure(coding: coding)
            }
            return output
        }
    }
}
