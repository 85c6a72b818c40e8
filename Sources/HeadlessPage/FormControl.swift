import Foundation

/// One listed, submittable element of a form (`input`, `button`, `select`, `textarea`), with the
/// state a user can change: its value, checkedness and selected options. A plain value: it holds
/// no reference to the parsed document.
public struct FormControl: Sendable, Equatable {
    /// The DOM `type`: an input's type (`text`, `hidden`, `password`, `email`, `checkbox`,
    /// `radio`, `submit`, `image`, `file`, ...), a button's (`submit`, `reset`, `button`),
    /// `select-one`, `select-multiple` or `textarea`.
    public let type: String
    /// Lower-case tag name.
    public let tag: String
    /// The `name` attribute ("" when absent: such a control is not submitted).
    public let name: String
    public let id: String?
    /// The text of every `<label>` that labels it, whitespace collapsed.
    public let labels: [String]
    /// Disabled itself or by an enclosing disabled `<fieldset>`: never submitted.
    public let isDisabled: Bool
    /// The current value (for a `select`, the first selected option's value).
    public var value: String
    /// Checkboxes and radio buttons.
    public var isChecked: Bool
    /// A `select`'s options in order.
    public var options: [FormOption]
    /// Files chosen for an `<input type=file>`.
    public var files: [FormFile]
    /// The `dirname` attribute: submits the text's direction under this name.
    public let dirname: String?
    /// A submitter's visible text: a button's text, an input's value (or "Submit").
    public let text: String
    /// A submitter's `formaction`, `formmethod` and `formenctype` overrides.
    public let formAction: String?
    public let formMethod: String?
    public let formEnctype: String?

    /// True for buttons and inputs that submit the form (`submit` and `image` types).
    public var isSubmitter: Bool { type == "submit" || type == "image" }

    /// True for controls whose value the user types (text-like inputs and textareas).
    public var isTextEntry: Bool {
        tag == "textarea" || (tag == "input" && !Self.nonTextInputTypes.contains(type))
    }

    static let nonTextInputTypes: Set<String> = ["checkbox", "radio", "submit", "image", "reset", "button", "file"]

    /// Whether `key` names this control: its name, id or one of its labels (case-insensitive).
    func isNamed(_ key: String) -> Bool {
        name == key || id == key || labels.contains { $0.caseInsensitiveCompare(key) == .orderedSame }
    }
}

/// One `<option>` of a `select`.
public struct FormOption: Sendable, Equatable {
    /// The `value` attribute, else the text with whitespace collapsed.
    public let value: String
    public let text: String
    public var isSelected: Bool
    /// Disabled itself or by its `<optgroup>`.
    public let isDisabled: Bool
}

/// A file to submit from an `<input type=file>`.
public struct FormFile: Sendable, Equatable {
    public var filename: String
    public var contentType: String
    public var data: Data

    public init(filename: String, contentType: String = "application/octet-stream", data: Data) {
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }
}

/// One entry of a form's entry list (HTML's "constructing the entry list"): a name and a string
/// or a file.
public struct FormEntry: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case file(FormFile)
    }

    public let name: String
    public let value: Value

    public init(name: String, value: Value) {
        self.name = name
        self.value = value
    }

    public init(_ name: String, _ value: String) { self.init(name: name, value: .string(value)) }
}
