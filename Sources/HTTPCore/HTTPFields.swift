/// An HTTP message's header fields (RFC 9110 §5): in the order they were given, duplicates
/// kept, names compared ASCII-case-insensitively. The one header type of requests, responses
/// and the public API. A collection of `(name:, value:)` pairs, so it is built from array and
/// dictionary literals and read with `first`, `filter` and `for ... in` like the arrays it
/// replaced. Adding a field does not check it: `validate()` does, where fields enter the
/// library (a session's request, a relay hop's fields, the command line).
public struct HTTPFields: Sendable {
    public typealias Field = (name: String, value: String)

    var fields: [Field]

    public init() { fields = [] }

    /// `fields`, checked: throws for the first name that is not a token or value that holds a
    /// CR, LF or NUL.
    public init(validating fields: some Sequence<Field>) throws(HTTPFieldError) {
        self.fields = Array(fields)
        try validate()
    }

    /// The value of `name`: its fields' values joined by ", " (RFC 9110 §5.3), except
    /// Set-Cookie, which cannot be combined (§5.3, RFC 6265 §3): its first value. Setting
    /// replaces every field of that name with one, where the first was; nil removes them.
    public subscript(name: String) -> String? {
        get {
            let values = values(for: name)
            guard !values.isEmpty else { return nil }
            return name.equalsIgnoringASCIICase("Set-Cookie") ? values[0] : values.joined(separator: ", ")
        }
        set {
            if let newValue { set(name: name, value: newValue) } else { removeAll(named: name) }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    /// Whether a field named `name` is present.
    public func contains(name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Adds a field after the others (a second field of the same name is kept).
    public mutating func append(name: String, value: String) {
        fields.append((name, value))
    }

    /// One field `name: value`, in place of the first of that name (or at the end), the others
    /// of that name removed.
    public mutating func set(name: String, value: String) {
        guard let first = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) else {
            return fields.append((name, value))
        }
        fields[first].value = value
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if fields[index].name.equalsIgnoringASCIICase(name) { fields.remove(at: index) } else { index += 1 }
        }
    }

    /// Removes every field named `name`.
    public mutating func removeAll(named name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }
}

extension HTTPFields {
    /// Throws for the first field whose name is not a token (RFC 9110 §5.1) or whose value holds
    /// a CR, LF or NUL (§5.5): such a field would end the header early or smuggle in another one.
    public func validate() throws(HTTPFieldError) {
        for field in fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else { throw HTTPFieldError(.invalidName(field.name)) }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw HTTPFieldError(.invalidValue(name: field.name))
            }
        }
    }

    /// tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
