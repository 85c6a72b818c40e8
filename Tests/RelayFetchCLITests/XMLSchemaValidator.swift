import CLibXML2
import Foundation
import RelayFetchTestSupport

/// Validates XML documents against an XML Schema (XSD) with libxml2's validator, collecting its
/// messages instead of letting them go to stderr.
final class XMLSchemaValidator {
    private let schema: xmlSchemaPtr

    /// Parses the schema at `path`; throws when it cannot be read or is not a valid XSD.
    init(schemaFile path: String) throws {
        guard let parser = xmlSchemaNewParserCtxt(path) else { throw TestServerError(description: "cannot read the schema \(path)") }
        defer { xmlSchemaFreeParserCtxt(parser) }
        guard let schema = xmlSchemaParse(parser) else { throw TestServerError(description: "\(path) is not a valid XML Schema") }
        self.schema = schema
    }

    deinit { xmlSchemaFree(schema) }

    /// The validator's messages for `document`: empty when it is valid.
    func errors(in document: String) -> [String] {
        let messages = Messages()
        guard let doc = document.withCString({ xmlReadMemory($0, Int32(strlen($0)), "document.xml", nil, Int32(XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)) }) else {
            return ["not well-formed XML"]
        }
        defer { xmlFreeDoc(doc) }
        guard let context = xmlSchemaNewValidCtxt(schema) else { return ["cannot create a validation context"] }
        defer { xmlSchemaFreeValidCtxt(context) }
        // `messages` outlives the call below, which is the only one that reports through it.
        xmlSchemaSetValidStructuredErrors(context, { user, error in
            guard let user, let error else { return }
            let text = error.pointee.message.map { String(cString: $0) } ?? "?"
            Unmanaged<Messages>.fromOpaque(user).takeUnretainedValue().list
                .append("line \(error.pointee.line): \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }, Unmanaged.passUnretained(messages).toOpaque())
        let result = withExtendedLifetime(messages) { xmlSchemaValidateDoc(context, doc) }
        if result != 0 && messages.list.isEmpty { return ["the validator failed (\(result))"] }
        return messages.list
    }

    private final class Messages { var list: [String] = [] }
}
