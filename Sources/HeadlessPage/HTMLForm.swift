import Foundation

/// A `<form>` of a loaded page as a plain value: where and how it submits, and every control it
/// owns in tree order (including controls elsewhere in the document that name it with `form=`).
/// Fill it by a control's name, id or label text, then build the request a browser would send
/// (`request(submitter:)`, following HTML's form-submission algorithm) or hand it to a
/// `Navigator`. Controls are read from the markup; no script runs.
public struct HTMLForm: Sendable {
    /// The URL of the document the form is in (the referrer of its submission).
    public let documentURL: URL
    /// The base URL relative actions resolve against (`<base href>`, else the document's URL).
    public let baseURL: URL
    public let id: String?
    public let name: String?
    /// The `action` attribute as written (nil when absent).
    public var actionAttribute: String?
    /// The `method` attribute as written.
    public var methodAttribute: String?
    /// The `enctype` attribute as written.
    public var enctypeAttribute: String?
    /// Every listed control the form owns, in tree order.
    public var controls: [FormControl]

    /// The resolved action: the attribute against the base URL; an empty or missing one is the
    /// document's URL.
    public var action: URL { resolveAction(actionAttribute) }
    /// "GET", "POST" or "DIALOG"; a missing or unknown method is GET.
    public var method: String { Self.method(methodAttribute) }
    /// The encoding type; a missing or unknown one is urlencoded.
    public var enctype: FormEncoding { FormEncoding(attribute: enctypeAttribute) }

    /// The controls that can submit the form, in tree order.
    public var submitters: [FormControl] { controls.filter(\.isSubmitter) }

    /// The controls named `key` (name first, then id, then label text).
    public func controls(named key: String) -> [Int] {
        let byName = controls.indices.filter { controls[$0].name == key }
        if !byName.isEmpty { return byName }
        let byID = controls.indices.filter { controls[$0].id == key }
        if !byID.isEmpty { return byID }
        return controls.indices.filter { controls[$0].isNamed(key) }
    }

    /// Sets a field. A text field or textarea takes `value`; a select selects the option whose
    /// value or text is `value` (the only one, unless it is multiple); a radio group checks the
    /// button whose value is `value`; a checkbox is checked by its value (or "on"/"true",
    /// unchecked by "off"/"false"). Throws when no enabled field has that name, id or label.
    public mutating func fill(_ key: String, with value: String) throws(FormError) {
        let found = controls(named: key).filter { !controls[$0].isDisabled }
        guard let first = found.first else { throw FormError(.noSuchField(key)) }
        switch controls[first].type {
        case "radio":
            guard let chosen = found.first(where: { controls[$0].value == value }) else {
                throw FormError(.noSuchChoice(field: key, value: value))
            }
            check(radio: chosen)
        case "checkbox":
            if let match = found.first(where: { controls[$0].value == value }) {
                controls[match].isChecked = true
            } else if found.count == 1, ["on", "true", "off", "false"].contains(value.lowercased()) {
                controls[first].isChecked = ["on", "true"].contains(value.lowercased())
            } else {
                throw FormError(.noSuchChoice(field: key, value: value))
            }
        case "select-one", "select-multiple":
            try select([value], in: first, adding: controls[first].type == "select-multiple")
        case "file":
            throw FormError(.notFillable(key, type: "file"))
        default:
            guard controls[first].isTextEntry else { throw FormError(.notFillable(key, type: controls[first].type)) }
            guard found.count == 1 else { throw FormError(.ambiguousField(key, count: found.count)) }
            controls[first].value = value
        }
    }

    /// Checks or unchecks a checkbox (or checks a radio button) named `key`, chosen by `value`
    /// when several share the name.
    public mutating func setChecked(_ key: String, value: String? = nil, _ checked: Bool = true) throws(FormError) {
        let found = controls(named: key).filter { ["checkbox", "radio"].contains(controls[$0].type) && !controls[$0].isDisabled }
        let matching = value.map { wanted in found.filter { controls[$0].value == wanted } } ?? found
        guard let index = matching.first else { throw FormError(.noSuchField(key)) }
        guard matching.count == 1 else { throw FormError(.ambiguousField(key, count: matching.count)) }
        if controls[index].type == "radio" {
            if checked { check(radio: index) } else { controls[index].isChecked = false }
        } else {
            controls[index].isChecked = checked
        }
    }

    /// Selects exactly `values` (option values or texts) in the select named `key`.
    public mutating func choose(_ key: String, options values: [String]) throws(FormError) {
        guard let index = controls(named: key).first(where: { controls[$0].type.hasPrefix("select") && !controls[$0].isDisabled }) else {
            throw FormError(.noSuchField(key))
        }
        try select(values, in: index, adding: false)
    }

    /// Attaches files to the `<input type=file>` named `key`.
    public mutating func attach(_ files: [FormFile], to key: String) throws(FormError) {
        guard let index = controls(named: key).first(where: { controls[$0].type == "file" && !controls[$0].isDisabled }) else {
            throw FormError(.noSuchField(key))
        }
        controls[index].files = files
    }

    private mutating func check(radio index: Int) {
        let group = controls[index].name
        for other in controls.indices where controls[other].type == "radio" && controls[other].name == group && !group.isEmpty {
            controls[other].isChecked = false
        }
        controls[index].isChecked = true
    }

    private mutating func select(_ values: [String], in index: Int, adding: Bool) throws(FormError) {
        var options = controls[index].options
        if !adding || controls[index].type == "select-one" {
            for option in options.indices { options[option].isSelected = false }
        }
        for value in values {
            guard let option = options.firstIndex(where: { !$0.isDisabled && $0.value == value })
                ?? options.firstIndex(where: { !$0.isDisabled && $0.text == value }) else {
                throw FormError(.noSuchChoice(field: controls[index].name, value: value))
            }
            if controls[index].type == "select-one" {
                for other in options.indices { options[other].isSelected = false }
            }
            options[option].isSelected = true
        }
        controls[index].options = options
        controls[index].value = options.first(where: \.isSelected)?.value ?? ""
    }

    /// The submitter a user would press: `key` matches a submit button's name, id, value or
    /// text; nil picks none (implicit submission, as pressing Enter in a form without buttons).
    public func submitter(_ key: String) throws(FormError) -> Int {
        let candidates = controls.indices.filter { controls[$0].isSubmitter && !controls[$0].isDisabled }
        if let index = candidates.first(where: { controls[$0].name == key || controls[$0].id == key })
            ?? candidates.first(where: { controls[$0].text.caseInsensitiveCompare(key) == .orderedSame })
            ?? candidates.first(where: { controls[$0].value == key }) {
            return index
        }
        throw FormError(.noSuchSubmitter(key, available: candidates.map { controls[$0].text }))
    }

    func resolveAction(_ attribute: String?) -> URL {
        guard let attribute, !attribute.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
              let url = URL(string: attribute.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: baseURL)?.absoluteURL else {
            return documentURL
        }
        return url
    }

    static func method(_ attribute: String?) -> String {
        switch attribute?.lowercased() {
        case "post": return "POST"
        case "dialog": return "DIALOG"
        default: return "GET"
        }
    }
}

/// How a form's entries become a body or query (the `enctype` attribute).
public enum FormEncoding: String, Sendable {
    case urlEncoded = "application/x-www-form-urlencoded"
    case multipart = "multipart/form-data"
    case textPlain = "text/plain"

    /// A missing or unknown value is urlencoded, as in HTML.
    public init(attribute: String?) {
        self = attribute.flatMap { FormEncoding(rawValue: $0.lowercased().trimmingCharacters(in: .whitespaces)) } ?? .urlEncoded
    }
}
