import Foundation
import HTMLDOM

extension HTMLDocument {
    /// Every form of the document, in tree order, with the controls each owns: its descendants
    /// without a `form=` attribute, and any control whose `form=` names the form's id.
    /// `url` is the document's URL (relative actions resolve against `<base href>`, else it).
    public func forms(documentURL url: URL) -> [HTMLForm] {
        let all = elements
        let baseURL = all.first { $0.name == "base" && $0.attribute("href") != nil }
            .flatMap { URL(string: $0.attribute("href")!, relativeTo: url)?.absoluteURL } ?? url
        let formElements = all.filter { $0.name == "form" }
        var firstByID: [String: HTMLElement] = [:]
        for element in all { if let id = element.attribute("id"), firstByID[id] == nil { firstByID[id] = element } }
        let labels = FormLabels(elements: all, firstByID: firstByID)
        var owned: [UnsafeMutableRawPointer: [FormControl]] = [:]
        for element in all where FormControlReader.listedTags.contains(element.name) {
            guard let owner = Self.owner(of: element, firstByID: firstByID), let control = FormControlReader.control(element, labels: labels) else { continue }
            owned[owner.identity, default: []].append(control)
        }
        return formElements.map { form in
            HTMLForm(documentURL: url, baseURL: baseURL, id: form.attribute("id"), name: form.attribute("name"),
                     actionAttribute: form.attribute("action"), methodAttribute: form.attribute("method"),
                     enctypeAttribute: form.attribute("enctype"), controls: owned[form.identity] ?? [])
        }
    }

    /// HTML's form owner: the element `form=` names when it is a form (none otherwise), else the
    /// nearest ancestor form.
    private static func owner(of element: HTMLElement, firstByID: [String: HTMLElement]) -> HTMLElement? {
        if let id = element.attribute("form") {
            guard let named = firstByID[id], named.name == "form" else { return nil }
            return named
        }
        return element.ancestors.first { $0.name == "form" }
    }
}

/// The text of the labels of each labelable element (`<label for=id>` or the first labelable
/// element inside the label).
struct FormLabels {
    private var texts: [UnsafeMutableRawPointer: [String]] = [:]

    init(elements: [HTMLElement], firstByID: [String: HTMLElement]) {
        for label in elements where label.name == "label" {
            let target: HTMLElement?
            if let id = label.attribute("for") {
                target = firstByID[id].flatMap { Self.isLabelable($0) ? $0 : nil }
            } else {
                target = label.descendants.first(where: Self.isLabelable)
            }
            if let target { texts[target.identity, default: []].append(label.normalizedText) }
        }
    }

    func labels(of element: HTMLElement) -> [String] { texts[element.identity] ?? [] }

    private static func isLabelable(_ element: HTMLElement) -> Bool {
        switch element.name {
        case "button", "select", "textarea", "meter", "output", "progress": return true
        case "input": return element.attribute("type")?.lowercased() != "hidden"
        default: return false
        }
    }
}

/// Reads one control's initial state from its markup, as HTML defines it.
enum FormControlReader {
    /// Listed elements that can be submitted (`object` and form-associated custom elements are
    /// out of scope: they need plugins or script).
    static let listedTags: Set<String> = ["input", "button", "select", "textarea"]

    static let inputTypes: Set<String> = [
        "hidden", "text", "search", "tel", "url", "email", "password", "date", "month", "week", "time",
        "datetime-local", "number", "range", "color", "checkbox", "radio", "file", "submit", "image", "reset", "button",
    ]

    static func control(_ element: HTMLElement, labels: FormLabels) -> FormControl? {
        let disabled = element.attribute("disabled") != nil || disabledByFieldset(element)
        let name = element.attribute("name") ?? ""
        let labelTexts = labels.labels(of: element)
        switch element.name {
        case "input":
            let type = element.attribute("type").map { $0.lowercased() }.flatMap { inputTypes.contains($0) ? $0 : nil } ?? "text"
            var value = element.attribute("value")
            if ["checkbox", "radio"].contains(type) { value = value ?? "on" }
            value = sanitized(value ?? "", type: type)
            let text = type == "submit" ? (element.attribute("value") ?? "Submit")
                : type == "image" ? (element.attribute("alt") ?? element.attribute("value") ?? "Submit") : (value ?? "")
            return FormControl(type: type, tag: "input", name: name, id: element.attribute("id"), labels: labelTexts, isDisabled: disabled,
                               value: value ?? "", isChecked: element.attribute("checked") != nil, options: [], files: [],
                               dirname: element.attribute("dirname"), text: text, formAction: element.attribute("formaction"),
                               formMethod: element.attribute("formmethod"), formEnctype: element.attribute("formenctype"))
        case "button":
            let type = element.attribute("type").map { $0.lowercased() }.flatMap { ["submit", "reset", "button"].contains($0) ? $0 : nil } ?? "submit"
            return FormControl(type: type, tag: "button", name: name, id: element.attribute("id"), labels: labelTexts, isDisabled: disabled,
                               value: element.attribute("value") ?? "", isChecked: false, options: [], files: [], dirname: nil,
                               text: element.normalizedText, formAction: element.attribute("formaction"),
                               formMethod: element.attribute("formmethod"), formEnctype: element.attribute("formenctype"))
        case "select":
            let multiple = element.attribute("multiple") != nil
            let options = selectOptions(element, multiple: multiple)
            return FormControl(type: multiple ? "select-multiple" : "select-one", tag: "select", name: name, id: element.attribute("id"),
                               labels: labelTexts, isDisabled: disabled, value: options.first(where: \.isSelected)?.value ?? "",
                               isChecked: false, options: options, files: [], dirname: nil, text: "", formAction: nil,
                               formMethod: nil, formEnctype: nil)
        case "textarea":
            var value = element.text
            // The parser drops a newline right after <textarea>; libxml2 keeps it.
            if value.hasPrefix("\r\n") { value.removeFirst() } else if value.hasPrefix("\n") { value.removeFirst() }
            return FormControl(type: "textarea", tag: "textarea", name: name, id: element.attribute("id"), labels: labelTexts,
                               isDisabled: disabled, value: value, isChecked: false, options: [], files: [],
                               dirname: element.attribute("dirname"), text: "", formAction: nil, formMethod: nil, formEnctype: nil)
        default:
            return nil
        }
    }

    /// A disabled `<fieldset>` disables what it holds, except what is inside its first `<legend>`.
    static func disabledByFieldset(_ element: HTMLElement) -> Bool {
        var path: [HTMLElement] = [element]
        for ancestor in element.ancestors {
            if ancestor.name == "fieldset", ancestor.attribute("disabled") != nil {
                let firstLegend = ancestor.children.first { $0.name == "legend" }
                let insideLegend = firstLegend.map { legend in path.contains { $0.isSame(as: legend) } } ?? false
                if !insideLegend { return true }
            }
            path.append(ancestor)
        }
        return false
    }

    /// Value sanitization: line-oriented inputs drop newlines; url and email also trim.
    static func sanitized(_ value: String, type: String) -> String {
        switch type {
        case "text", "search", "tel", "password":
            return String(value.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }.map(Character.init))
        case "url", "email":
            return String(value.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }.map(Character.init))
                .trimmingCharacters(in: CharacterSet(charactersIn: " \t\u{0C}"))
        default:
            return value
        }
    }

    /// A select's options with HTML's selectedness: the last `selected` option wins in a single
    /// select; with none, a single select (display size 1) selects its first enabled option.
    static func selectOptions(_ select: HTMLElement, multiple: Bool) -> [FormOption] {
        var options: [FormOption] = []
        for option in select.descendants where option.name == "option" {
            let groupDisabled = option.parent.map { $0.name == "optgroup" && $0.attribute("disabled") != nil } ?? false
            let text = option.normalizedText
            options.append(FormOption(value: option.attribute("value") ?? text, text: text,
                                      isSelected: option.attribute("selected") != nil,
                                      isDisabled: option.attribute("disabled") != nil || groupDisabled))
        }
        guard !multiple else { return options }
        if let last = options.lastIndex(where: \.isSelected) {
            for index in options.indices { options[index].isSelected = index == last }
        } else if Int(select.attribute("size") ?? "1") ?? 1 <= 1, let first = options.firstIndex(where: { !$0.isDisabled }) {
            options[first].isSelected = true
        }
        return options
    }
}
