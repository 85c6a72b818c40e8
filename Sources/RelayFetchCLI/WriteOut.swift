import HTTPCore
import Foundation

/// `-w`/`--write-out`: text with curl's `%{variable}`s (TransferReport.variables, plus
/// `%{json}`, and `%{stdout}`/`%{stderr}` that switch where what follows goes), `%header{name}`,
/// `%%`, and the escapes \n \r \t. Parsed once: an unknown variable is bad usage.
struct WriteOut {
    enum Stream { case stdout, stderr }

    private enum Piece {
        case text(String)
        case variable(String)
        case header(String)
        case json
        case switchTo(Stream)
    }

    private let pieces: [Piece]

    /// The variables a format may name, beside json, stdout, stderr.
    static let variableNames: Set<String> = Set(TransferReport(url: URL(fileURLWithPath: "/"), method: "GET").variables.keys)

    init(format: String) throws {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.popFirst() {
            switch character {
            case "\\":
                switch rest.first {
                case "n": text += "\n"; rest.removeFirst()
                case "r": text += "\r"; rest.removeFirst()
                case "t": text += "\t"; rest.removeFirst()
                case "\\": text += "\\"; rest.removeFirst()
                default: text += "\\"
                }
            case "%":
                if rest.first == "%" {
                    rest.removeFirst()
                    text += "%"
                    continue
                }
                let kind = rest.hasPrefix("{") ? "" : rest.hasPrefix("header{") ? "header" : nil
                guard let kind, let close = rest.firstIndex(of: "}") else {
                    text += "%"
                    continue
                }
                let name = String(rest[rest.index(rest.startIndex, offsetBy: kind.count + 1)..<close])
                rest = rest[rest.index(after: close)...]
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                if kind == "header" {
                    pieces.append(.header(name))
                    continue
                }
                switch name {
                case "json": pieces.append(.json)
                case "stdout": pieces.append(.switchTo(.stdout))
                case "stderr": pieces.append(.switchTo(.stderr))
                default:
                    guard Self.variableNames.contains(name) else {
                        throw UsageError("-w: unknown variable %{\(UsageError.oneLine(name))} (see relayfetch get --help for the list)")
                    }
                    pieces.append(.variable(name))
                }
            default: text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The text for `report`, in runs each bound for its stream.
    func render(_ report: TransferReport) -> [(Stream, String)] {
        var output: [(Stream, String)] = []
        var stream = Stream.stdout
        let variables = report.variables
        for piece in pieces {
            let text: String
            switch piece {
            case .text(let value): text = value
            case .variable(let name):
                // Status codes with three digits ("000" without a response), as curl's %03ld.
                text = name == "http_code" || name == "response_code" ? String(format: "%03d", variables[name] as? Int ?? 0) : Self.format(variables[name] ?? "")
            case .header(let name): text = report.response?.headerFields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value).joined(separator: ", ") ?? ""
            case .json: text = Self.json(variables)
            case .switchTo(let next):
                stream = next
                continue
            }
            output.append((stream, text))
        }
        return output
    }

    /// Times with six decimals, as curl prints them; http_code with three digits.
    private static func format(_ value: Any) -> String {
        switch value {
        case let seconds as Double: return String(format: "%.6f", seconds)
        case let number as Int: return String(number)
        default: return "\(value)"
        }
    }

    private static func json(_ variables: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: variables, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
