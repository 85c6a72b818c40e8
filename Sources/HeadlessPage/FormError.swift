import Foundation

/// Why a form could not be filled or submitted, or a navigation could not go on; the description
/// names the field, submitter or URL.
public struct FormError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: Sendable, Equatable {
        /// No enabled control has this name, id or label text.
        case noSuchField(String)
        /// Several text controls share this name.
        case ambiguousField(String, count: Int)
        /// The field has no option, radio button or checkbox with this value.
        case noSuchChoice(field: String, value: String)
        /// The control takes no typed value (a button, a file input).
        case notFillable(String, type: String)
        /// No enabled submit button matches.
        case noSuchSubmitter(String, available: [String])
        /// No form on the page matches the selector.
        case noSuchForm(String)
        /// `method=dialog` closes a dialog; it sends nothing.
        case dialogMethod
        /// The action's scheme cannot be submitted to (only http and https).
        case unsupportedAction(String)
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .noSuchField(let key): return "the form has no enabled field named \"\(key)\" (by name, id or label)"
        case .ambiguousField(let key, let count): return "\(count) fields are named \"\(key)\"; pick one by id"
        case .noSuchChoice(let field, let value): return "field \"\(field)\" has no choice \"\(value)\""
        case .notFillable(let key, let type): return "field \"\(key)\" is a \(type) control and takes no typed value"
        case .noSuchSubmitter(let key, let available):
            return "the form has no submit button \"\(key)\" (it has: \(available.map { "\"\($0)\"" }.joined(separator: ", ")))"
        case .noSuchForm(let selector): return "the page has no form matching \"\(selector)\""
        case .dialogMethod: return "the form's method is dialog: submitting it sends no request"
        case .unsupportedAction(let url): return "cannot submit a form to \(url) (only http and https actions)"
        }
    }
}
