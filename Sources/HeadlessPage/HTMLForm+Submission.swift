import Foundation
import RelayFetch

extension HTMLForm {
    /// HTML's "constructing the entry list": every enabled, named control in tree order; checked
    /// checkboxes and radios only; each selected, enabled option; of the buttons, only
    /// `submitter` (an index into `controls`); an image submitter as `name.x`/`name.y`.
    /// Strings are UTF-8; `_charset_` hidden fields say so.
    public func entryList(submitter: Int? = nil) -> [FormEntry] {
        var entries: [FormEntry] = []
        for (index, control) in controls.enumerated() where !control.isDisabled {
            let isSubmitter = index == submitter
            if ["submit", "reset", "button", "image"].contains(control.type) && !isSubmitter { continue }
            if ["checkbox", "radio"].contains(control.type) && !control.isChecked { continue }
            if control.type == "image" {
                let prefix = control.name.isEmpty ? "" : control.name + "."
                entries += [FormEntry(prefix + "x", "0"), FormEntry(prefix + "y", "0")]
                continue
            }
            guard !control.name.isEmpty else { continue }
            switch control.type {
            case "select-one", "select-multiple":
                for option in control.options where option.isSelected && !option.isDisabled {
                    entries.append(FormEntry(control.name, option.value))
                }
            case "file":
                let files = control.files.isEmpty ? [FormFile(filename: "", data: Data())] : control.files
                entries += files.map { FormEntry(name: control.name, value: .file($0)) }
            case "hidden" where control.name.lowercased() == "_charset_":
                entries.append(FormEntry(control.name, "UTF-8"))
            default:
                entries.append(FormEntry(control.name, control.value))
            }
            if let dirname = control.dirname, !dirname.isEmpty, control.isTextEntry {
                entries.append(FormEntry(dirname, "ltr"))
            }
        }
        return entries
    }

    /// The request a browser sends when `submitter` (a submit button's name, id, value or text;
    /// nil for none) submits the form: GET puts the urlencoded entries in the action's query,
    /// POST sends them as the body in the chosen encoding. The submitter's `formaction`,
    /// `formmethod` and `formenctype` override the form's.
    public func request(submitter key: String? = nil, boundary: String = FormBodyEncoder.randomBoundary()) throws(FormError) -> HTTPRequest {
        let index = try key.map { key throws(FormError) in try submitter(key) }
        let button = index.map { controls[$0] }
        let action = button?.formAction.map { resolveAction($0) } ?? action
        let method = button?.formMethod.map { Self.method($0) } ?? method
        let encoding = button?.formEnctype.map { FormEncoding(attribute: $0) } ?? enctype
        guard method != "DIALOG" else { throw FormError(.dialogMethod) }
        guard let scheme = action.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw FormError(.unsupportedAction(action.absoluteString))
        }
        let entries = entryList(submitter: index)
        if method == "GET" {
            var components = URLComponents(url: action, resolvingAgainstBaseURL: false)
            components?.percentEncodedQuery = FormBodyEncoder.urlEncoded(entries)
            guard let url = components?.url else { throw FormError(.unsupportedAction(action.absoluteString)) }
            return HTTPRequest(url: url)
        }
        let (body, contentType) = FormBodyEncoder.encode(entries, as: encoding, boundary: boundary)
        return HTTPRequest(url: action, method: "POST", headerFields: [("Content-Type", contentType)], body: body)
    }
}

/// The three form encodings of HTML's form submission, over an entry list, always UTF-8.
public enum FormBodyEncoder {
    /// The body and its Content-Type header value.
    public static func encode(_ entries: [FormEntry], as encoding: FormEncoding, boundary: String) -> (Data, String) {
        switch encoding {
        case .urlEncoded: return (Data(urlEncoded(entries).utf8), encoding.rawValue)
        case .multipart: return (multipart(entries, boundary: boundary), "multipart/form-data; boundary=\(boundary)")
        case .textPlain: return (Data(textPlain(entries).utf8), "text/plain;charset=UTF-8")
        }
    }

    /// application/x-www-form-urlencoded: newlines normalized to CRLF, files by their names,
    /// each byte outside `*-._` and alphanumerics percent-encoded, spaces as `+`.
    public static func urlEncoded(_ entries: [FormEntry]) -> String {
        pairs(entries).map { serialize($0.name) + "=" + serialize($0.value) }.joined(separator: "&")
    }

    /// multipart/form-data (RFC 7578 as HTML uses it): newlines in names and string values
    /// become CRLF; `"`, CR and LF in names and filenames are percent-escaped.
    public static func multipart(_ entries: [FormEntry], boundary: String) -> Data {
        var body = Data()
        for entry in entries {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escapeQuoted(normalizeNewlines(entry.name)))\"".utf8))
            switch entry.value {
            case .string(let value):
                body.append(Data("\r\n\r\n\(normalizeNewlines(value))\r\n".utf8))
            case .file(let file):
                body.append(Data("; filename=\"\(escapeQuoted(file.filename))\"\r\nContent-Type: \(file.contentType)\r\n\r\n".utf8))
                body.append(file.data)
                body.append(Data("\r\n".utf8))
            }
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    /// text/plain: `name=value` lines ending in CRLF, unescaped (not reliably machine-readable,
    /// as HTML warns).
    public static func textPlain(_ entries: [FormEntry]) -> String {
        pairs(entries).map { "\($0.name)=\($0.value)\r\n" }.joined()
    }

    /// A boundary no body is likely to contain.
    public static func randomBoundary() -> String {
        "----relayfetch" + (0..<16).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
    }

    /// HTML's "convert to a list of name-value pairs": files become their names; newlines CRLF.
    static func pairs(_ entries: [FormEntry]) -> [(name: String, value: String)] {
        entries.map { entry in
            let value: String
            switch entry.value {
            case .string(let text): value = text
            case .file(let file): value = file.filename
            }
            return (normalizeNewlines(entry.name), normalizeNewlines(value))
        }
    }

    /// A lone CR or a lone LF becomes CRLF.
    static func normalizeNewlines(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\r" {
                result.append(contentsOf: "\r\n".unicodeScalars)
            } else if scalar == "\n" {
                if index > 0, scalars[index - 1] == "\r" { continue }
                result.append(contentsOf: "\r\n".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func serialize(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case 0x2A, 0x2D, 0x2E, 0x30...0x39, 0x41...0x5A, 0x5F, 0x61...0x7A: result.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20: result.append("+")
            default: result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    private static func escapeQuoted(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "%0A"
            case "\r": result += "%0D"
            case "\"": result += "%22"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
