/// The pseudo-classes a document nobody touches answers without a user: dynamic ones (which
/// never match) and states that attributes decide.
enum PseudoClassNames {
    static let dynamic: Set<String> = [
        "hover", "active", "focus", "focus-within", "focus-visible", "visited", "target", "target-within", "current",
        "past", "future", "playing", "paused", "user-invalid", "user-valid", "autofill", "-webkit-autofill", "fullscreen",
        "modal", "picture-in-picture", "popover-open", "open", "closed", "indeterminate", "default", "invalid",
        "in-range", "out-of-range", "-webkit-full-screen", "window-inactive", "horizontal", "vertical", "decrement",
        "increment", "start", "end", "double-button", "single-button", "no-button", "corner-present", "host", "blank",
    ]
    static let states: [String: StaticState] = [
        "link": .link, "any-link": .link, "-webkit-any-link": .link, "checked": .checked, "disabled": .disabled,
        "enabled": .enabled, "required": .required, "optional": .optional, "read-only": .readOnly,
        "read-write": .readWrite, "placeholder-shown": .placeholderShown, "defined": .defined, "valid": .defined,
    ]
}
