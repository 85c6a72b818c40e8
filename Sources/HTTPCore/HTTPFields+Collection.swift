/// The collection and literal conformances: what lets code written for `[(name:, value:)]`
/// (`first { }`, `filter`, `+=`, `removeAll(where:)`, `[("Accept", "text/html")]`) keep working.
extension HTTPFields: RandomAccessCollection, RangeReplaceableCollection {
    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> Field { fields[position] }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Field {
        fields.replaceSubrange(subrange, with: newElements)
    }

    public mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }
}

extension HTTPFields: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Field...) { fields = elements }
}

extension HTTPFields: ExpressibleByDictionaryLiteral {
    /// In the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { ($0.0, $0.1) } }
}

extension HTTPFields: Hashable {
    /// Same fields in the same order; names compared ASCII-case-insensitively, values exactly.
    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.count == rhs.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.equalsIgnoringASCIICase($1.name) && $0.value == $1.value }
    }

    /// Names hashed in lower case, as `==` compares them (a relay endpoint, fields included, keys its pool).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

extension HTTPFields: CustomStringConvertible {
    /// "Name: value" lines, as on the wire (for messages and logs).
    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\r\n") }
}
