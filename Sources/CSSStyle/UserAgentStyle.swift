import HTMLDOM
/// The parts of a browser's default style sheet (HTML's rendering section) that decide loads,
/// and the text a box renders (its own text, a form control's value or placeholder, a list
/// marker), which decides the fonts it needs.
enum UserAgentStyle {
    private static let hidden: Set<String> = [
        "head", "script", "style", "template", "title", "meta", "link", "base", "noembed", "noframes", "datalist", "area",
        "param", "rp",
    ]
    private static let bold: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6", "th", "optgroup"]
    private static let bolder: Set<String> = ["b", "strong"]
    private static let italic: Set<String> = ["i", "em", "cite", "var", "dfn", "address"]
    private static let monospace: Set<String> = ["code", "kbd", "pre", "samp", "tt", "listing", "xmp", "plaintext"]
    private static let controls: Set<String> = ["input", "button", "select", "textarea"]

    /// Whether the default style sheet gives the element `display: none`: head matter, scripts,
    /// templates, the `hidden` attribute, hidden inputs and closed dialogs.
    static func hides(_ name: String, attribute: (String) -> String?) -> Bool {
        hidden.contains(name) || attribute("hidden") != nil || (name == "input" && attribute("type")?.lowercased() == "hidden")
            || (name == "dialog" && attribute("open") == nil)
    }

    static func declarations(for node: DocumentSnapshot.Node) -> [(String, String)] {
        var result: [(String, String)] = []
        let name = node.name
        if hides(name, attribute: { node.attributes[$0] }) { result.append(("display", "none")) }
        if name == "li" || name == "summary" { result.append(("display", "list-item")) }
        if name == "ol" { result.append(("list-style-type", "decimal")) }
        if bold.contains(name) { result.append(("font-weight", "bold")) }
        if bolder.contains(name) { result.append(("font-weight", "bolder")) }
        if italic.contains(name) { result.append(("font-style", "italic")) }
        if monospace.contains(name) { result.append(("font-family", "monospace")) }
        if controls.contains(name) { result.append(("font", "13.333px system-ui")) }
        return result
    }

    private static let textInputs: Set<String> = ["", "text", "search", "url", "tel", "email", "password", "number"]

    /// The text the box renders itself (not its children's).
    static func text(of node: DocumentSnapshot.Node, style: ComputedStyle, snapshot: DocumentSnapshot, index: Int) -> String {
        var text = node.ownText
        if node.name == "input" {
            let type = node.attributes["type"]?.lowercased() ?? ""
            if textInputs.contains(type) {
                text = (node.attributes["value"].flatMap { $0.isEmpty ? nil : $0 }) ?? node.attributes["placeholder"] ?? ""
            } else if type == "submit" || type == "reset" {
                text = node.attributes["value"] ?? (type == "submit" ? "Submit" : "Reset")
            } else if type == "button" {
                text = node.attributes["value"] ?? ""
            }
        }
        if node.name == "textarea", let placeholder = node.attributes["placeholder"], text.isEmpty { text = placeholder }
        if style.display == "list-item", style.listStyleType != "none" {
            text += style.listStyleType == "decimal" ? "1." : "\u{2022}"
        }
        return text
    }
}
