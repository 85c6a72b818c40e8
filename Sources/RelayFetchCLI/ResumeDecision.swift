import Foundation

/// What `get -C -` does with the answer to a Range request for the rest of a partial file of
/// `offset` bytes (RFC 9110 §14): append, start over, or stop. Only a 2xx answer ever touches
/// the partial file: an error page must never replace the bytes a resume would continue from.
enum ResumeDecision: Equatable {
    /// 206 starting exactly at the offset: append the body to the partial file.
    case append
    /// Any other success (200: the If-Range validator no longer matched, or the server ignores
    /// ranges): the body is the whole resource and replaces the partial file.
    case replace
    /// Any status outside 2xx other than 416 (a 404, a 5xx, a redirect not followed): the
    /// partial file stays exactly as it was and the command fails naming the status.
    case refuse(status: Int)
    /// 416 whose complete length is the partial file's size: the file was already whole.
    case alreadyComplete
    /// An answer that cannot be joined to the partial file.
    case fail(String)

    static func decide(status: Int, contentRange: String?, offset: Int) -> ResumeDecision {
        switch status {
        case 206:
            guard let range = contentRange.flatMap(ContentRange.init) else {
                return .fail("the server answered 206 without a usable Content-Range")
            }
            guard range.first == offset else {
                return .fail("the server sent bytes from \(range.first.map(String.init) ?? "?") for a file of \(offset) bytes")
            }
            return .append
        case 416:
            if let range = contentRange.flatMap(ContentRange.init), range.first == nil, range.completeLength == offset {
                return .alreadyComplete
            }
            return .fail("the server refused the range from byte \(offset) (416): the local file is larger than the resource")
        case 200..<300:
            return .replace
        default:
            return .refuse(status: status)
        }
    }
}

/// A Content-Range field value: `bytes FIRST-LAST/LENGTH`, or `bytes */LENGTH` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    /// nil for the unsatisfied form (`*`).
    let first: Int?
    let completeLength: Int?

    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        completeLength = parts[1] == "*" ? nil : Int(parts[1])
        if parts[1] != "*" && completeLength == nil { return nil }
        if parts[0] == "*" {
            first = nil
            return
        }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first <= last else { return nil }
        self.first = first
    }
}
