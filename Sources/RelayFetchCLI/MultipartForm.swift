import Foundation
import RelayFetch

/// `-F`'s multipart/form-data body (RFC 7578) as curl builds it: text fields, fields read from a
/// file (`name=<FILE`) and file uploads (`name=@FILE`), each with an optional `;type=` and, for
/// uploads, `;filename=`. Uploaded files are streamed, never read into memory.
struct MultipartForm {
    enum Content {
        case text(Data)
        case file(path: String)
    }

    struct Field {
        var name: String
        var content: Content
        var type: String?
        var filename: String?
    }

    var fields: [Field] = []
    let boundary = "------------------------" + String((0..<22).map { _ in "0123456789abcdefghijklmnopqrstuvwxyz".randomElement()! })

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Adds one `-F` value; `literal` for `--form-string` (no @, < or ;type= read in it).
    mutating func add(_ text: String, literal: Bool, option: String, standardInput: () -> Data) throws {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("\(option) needs name=content (content @FILE uploads a file, <FILE reads a field from one), not \(UsageError.quoted(text))")
        }
        let name = String(text[..<equals])
        var value = String(text[text.index(after: equals)...])
        if literal { return fields.append(Field(name: name, content: .text(Data(value.utf8)))) }
        var parameters: [String: String] = [:]
        if let first = value.first, first == "@" || first == "<" {
            let parts = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            value = parts[0]
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, ["type", "filename"].contains(pair[0].lowercased()) else {
                    throw UsageError("\(option) \(UsageError.quoted(text)): unknown parameter \(UsageError.quoted(parameter)) (type= or filename=)")
                }
                parameters[pair[0].lowercased()] = pair[1]
            }
            guard !value.isEmpty else { throw UsageError("\(option) \(UsageError.quoted(text)): no file name after \(first)") }
            if first == "<" {
                let data = try ArgumentFile.read(value, option: option, standardInput: standardInput)
                fields.append(Field(name: name, content: .text(data), type: parameters["type"]))
            } else if value == "-" {
                let data = try ArgumentFile.read(value, option: option, standardInput: standardInput)
                fields.append(Field(name: name, content: .text(data), type: parameters["type"] ?? "application/octet-stream", filename: parameters["filename"] ?? "-"))
            } else {
                guard FileManager.default.isReadableFile(atPath: value) else {
                    throw UsageError("\(option) \(UsageError.quoted(text)): \(UsageError.quoted(value)) is no readable file")
                }
                fields.append(Field(name: name, content: .file(path: value), type: parameters["type"] ?? Self.mediaType(of: value),
                                    filename: parameters["filename"] ?? URL(fileURLWithPath: value).lastPathComponent))
            }
            return
        }
        // A text value's own ";type=" sets its type, as curl's does.
        if let range = value.range(of: ";type=", options: .backwards) {
            parameters["type"] = String(value[range.upperBound...])
            value = String(value[..<range.lowerBound])
        }
        fields.append(Field(name: name, content: .text(Data(value.utf8)), type: parameters["type"]))
    }

    /// The body: each field's head and content, the files as parts read while they are sent.
    func bodyStream() throws -> RequestBodyStream {
        var parts: [RequestBodyStream.Part] = []
        var pending = Data()
        for field in fields {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(field.name))\""
            if let filename = field.filename { head += "; filename=\"\(Self.escaped(filename))\"" }
            if let type = field.type { head += "\r\nContent-Type: \(type)" }
            pending += Data((head + "\r\n\r\n").utf8)
            switch field.content {
            case .text(let data): pending += data
            case .file(let path):
                parts.append(.data(pending))
                pending = Data()
                parts.append(.file(URL(fileURLWithPath: path)))
            }
            pending += Data("\r\n".utf8)
        }
        pending += Data("--\(boundary)--\r\n".utf8)
        parts.append(.data(pending))
        return try RequestBodyStream(parts)
    }

    /// A name in quotes as HTML forms (and curl 8) write it: quote, CR and LF percent-encoded.
    private static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    /// The type curl guesses from a file's extension, else application/octet-stream.
    private static func mediaType(of path: String) -> String {
        let types = ["txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "json": "application/json",
                     "xml": "application/xml", "js": "application/javascript", "pdf": "application/pdf", "png": "image/png",
                     "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml"]
        return types[URL(fileURLWithPath: path).pathExtension.lowercased()] ?? "application/octet-stream"
    }
}
