import Foundation

/// Why a form could not be filled or submitted, or a navigation could not go on; the description
/// names the field, submitter or URL.
///
/// `code` is an open set, as `FetchError.Code` is (a struct of static values: a new condition is
/// a new value and no client's `switch` stops compiling); compare with `==` or match with a
/// `default:`. `Detail` holds the condition's values inside the package, where the text is written.
public struct FormError: Error, Sendable, CustomStringConvertible, Equatable {
    package enum Detail: Sendable, Equatable {
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

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    public var description: String {
        switch detail {
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

extension FormError {
    /// Which condition a `FormError` is: an open set of named values (see `FormError`). Its
    /// `description` is the name, stable for logs and scripts.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// No enabled control has this name, id or label text.
        public static let noSuchField = Code("noSuchField")
        /// Several text controls share this name.
        public static let ambiguousField = Code("ambiguousField")
        /// The field has no option, radio button or checkbox with this value.
        public static let noSuchChoice = Code("noSuchChoice")
        /// The control takes no typed value (a button, a file input).
        public static let notFillable = Code("notFillable")
        /// No enabled submit button matches.
        public static let noSuchSubmitter = Code("noSuchSubmitter")
        /// No form on the page matches the selector.
        public static let noSuchForm = Code("noSuchForm")
        /// `method=dialog` closes a dialog; it sends nothing.
        public static let dialogMethod = Code("dialogMethod")
        /// The action's scheme cannot be submitted to (only http and https).
        public static let unsupportedAction = Code("unsupportedAction")
    }

    public var code: Code {
        switch detail {
        case .noSuchField: return .noSuchField
        case .ambiguousField: return .ambiguousField
        case .noSuchChoice: return .noSuchChoice
        case .notFillable: return .notFillable
        case .noSuchSubmitter: return .noSuchSubmitter
        case .noSuchForm: return .noSuchForm
        case .dialogMethod: return .dialogMethod
        case .unsupportedAction: return .unsupportedAction
        }
    }

    /// The field, submitter or form selector the error is about (nil for `dialogMethod` and
    /// `unsupportedAction`).
    public var key: String? {
        switch detail {
        case .noSuchField(let key), .ambiguousField(let key, _), .noSuchChoice(let key, _), .notFillable(let key, _),
             .noSuchSubmitter(let key, _), .noSuchForm(let key):
            return key
        case .dialogMethod, .unsupportedAction: return nil
        }
    }
}
