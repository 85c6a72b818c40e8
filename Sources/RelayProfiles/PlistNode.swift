import Foundation

/// A value inside a property list with the key path that reached it, so every error and warning
/// can say exactly where it is.
struct PlistNode {
    let value: Any
    let path: String

    func child(_ key: String) -> PlistNode? {
        guard let dictionary = value as? [String: Any], let child = dictionary[key] else { return nil }
        return PlistNode(value: child, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func dictionary() throws(ProfileError) -> [String: Any] {
        guard let dictionary = value as? [String: Any] else { throw fail("expected a dictionary") }
        return dictionary
    }

    func string() throws(ProfileError) -> String {
        guard let string = value as? String else { throw fail("expected a string") }
        return string
    }

    func data() throws(ProfileError) -> Data {
        guard let data = value as? Data else { throw fail("expected data") }
        return data
    }

    func array() throws(ProfileError) -> [PlistNode] {
        guard let array = value as? [Any] else { throw fail("expected an array") }
        return array.enumerated().map { PlistNode(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func strings() throws(ProfileError) -> [String] {
        var result: [String] = []
        for item in try array() { result.append(try item.string()) }
        return result
    }

    func fail(_ reason: String) -> ProfileError { ProfileError(keyPath: path, reason: reason) }

    /// Checks this dictionary against `schema`: a known key whose value has another type is an
    /// error; unknown keys come back as warnings.
    func validate(_ schema: [String: PlistType]) throws(ProfileError) -> [ProfileWarning] {
        let dictionary = try dictionary()
        for key in dictionary.keys.sorted() {
            guard let expected = schema[key], let child = child(key), !expected.matches(child.value) else { continue }
            throw child.fail("expected \(expected.described)")
        }
        return unknownKeys(known: Set(schema.keys))
    }

    /// Warnings for keys of this dictionary that are not in `known`.
    func unknownKeys(known: Set<String>) -> [ProfileWarning] {
        guard let dictionary = value as? [String: Any] else { return [] }
        return dictionary.keys.sorted().filter { !known.contains($0) }.map {
            ProfileWarning(keyPath: path.isEmpty ? $0 : "\(path).\($0)", message: "unknown key, ignored")
        }
    }
}
