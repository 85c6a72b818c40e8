import Foundation

/// One field line of a Binary HTTP header or trailer section: a lowercase name and a value of
/// bytes. Values are bytes because HTTP allows obs-text that is not UTF-8.
public struct BinaryHTTPField: Sendable, Hashable, CustomStringConvertible {
    /// The field name: lowercase `tchar`s, or a pseudo-field such as ":protocol".
    public var name: String
    /// The field value, exactly as carried.
    public var value: Data

    /// A field with a value of raw bytes.
    public init(name: String, value: Data) {
        self.name = name
        self.value = value
    }

    /// A field with a UTF-8 text value.
    public init(name: String, value: String) {
        self.init(name: name, value: Data(value.utf8))
    }

    /// The value as UTF-8 text, or nil if it is not valid UTF-8.
    public var stringValue: String? { String(data: value, encoding: .utf8) }

    /// "name: value", for logs and test failures.
    public var description: String { "\(name): \(stringValue ?? value.description)" }
}
