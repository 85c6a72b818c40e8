import HTTPCore
import Foundation
import RelayFetch

/// The options of `get` that shape each request, with curl 8's spellings and meanings: the
/// method, header fields, credentials, range and body (`-d` and its kin, `--json`, `-F`, `-T`).
struct RequestOptions {
    /// Where the body comes from; one kind per command line, as in curl.
    enum Body {
        case none
        /// `-d`, `--data-*`, `--json`: bytes joined as curl joins them.
        case data(Data, json: Bool)
        case form(MultipartForm)
        /// `-T FILE`, or "-" for standard input: streamed.
        case upload(String)
    }

    var method: String?
    var head = false
    var headers: HTTPFields = []
    var body = Body.none
    /// `-G`: the -d data goes into the URL's query of a GET instead.
    var dataInQuery = false
    var userAgent: String?
    var credentials: String?
    var referer: String?
    var autoReferer = false
    var postKeptOnRedirects: Set<Int> = []
    var range: String?
    var locationTrusted = false

    /// Consumes the current option if it is one of these; returns false otherwise.
    mutating func parse(_ scanner: inout ArgumentScanner, standardInput: () -> Data) throws -> Bool {
        let option = scanner.current
        switch option {
        case "-X", "--request":
            let text = try scanner.value()
            guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0) }), text.allSatisfy(\.isASCII) else {
                throw UsageError("-X needs a method name (a token such as POST or PATCH), not \(UsageError.quoted(text))")
            }
            method = text
        case "-I", "--head": head = true
        case "-G", "--get": dataInQuery = true
        case "-H", "--header": headers.append(try RelayOptions.headerField(try scanner.value()))
        case "-A", "--user-agent": userAgent = try Self.oneLine(try scanner.value(), option: option)
        case "-e", "--referer":
            // curl's "URL;auto" (or ";auto" alone): URL on the first request, then each
            // followed redirect names the URL it came from.
            var text = try Self.oneLine(try scanner.value(), option: option)
            autoReferer = text.hasSuffix(";auto")
            if autoReferer { text.removeLast(";auto".count) }
            referer = text.isEmpty ? nil : text
        case "--post301": postKeptOnRedirects.insert(301)
        case "--post302": postKeptOnRedirects.insert(302)
        case "--post303": postKeptOnRedirects.insert(303)
        case "-u", "--user":
            let text = try scanner.value()
            guard text.contains(":") else {
                throw UsageError("-u needs user:password (relayfetch does not prompt for a password), not \(UsageError.quoted(text))")
            }
            credentials = try Self.oneLine(text, option: option)
        case "-r", "--range":
            let text = try scanner.value()
            guard Self.isByteRangeSet(text) else {
                throw UsageError("-r needs byte ranges such as 0-499, 500-, -500 or 0-1,5-9, not \(UsageError.quoted(text))")
            }
            range = text
        case "--compressed": break  // compressed answers are always asked for and decoded (see --help)
        case "--location-trusted": locationTrusted = true
        case "-d", "--data", "--data-ascii": try addData(try scanner.value(), option: option, at: true, strip: true, standardInput: standardInput)
        case "--data-binary": try addData(try scanner.value(), option: option, at: true, strip: false, standardInput: standardInput)
        case "--data-raw": try addData(try scanner.value(), option: option, at: false, strip: false, standardInput: standardInput)
        case "--data-urlencode": try addData(try urlencoded(try scanner.value(), standardInput: standardInput), option: option, at: false, strip: false,
                                             standardInput: standardInput)
        case "--json": try addData(try scanner.value(), option: option, at: true, strip: false, json: true, standardInput: standardInput)
        case "-F", "--form", "--form-string":
            var form: MultipartForm
            switch body {
            case .none: form = MultipartForm()
            case .form(let existing): form = existing
            default: throw Self.oneBody(option)
            }
            try form.add(try scanner.value(), literal: option == "--form-string", option: option, standardInput: standardInput)
            body = .form(form)
        case "-T", "--upload-file":
            let path = try scanner.value()
            guard case .none = body else { throw Self.oneBody(option) }
            if path != "-" && path != "." && !FileManager.default.isReadableFile(atPath: path) {
                throw UsageError("-T \(UsageError.quoted(path)): no such readable file")
            }
            body = .upload(path == "." ? "-" : path)
        default: return false
        }
        return true
    }

    /// Refuses what curl refuses: two methods asked for at once.
    func validate() throws {
        let bodyOption: String?
        switch body {
        case .none: bodyOption = nil
        case .data(_, let json): bodyOption = json ? "--json" : "-d"
        case .form: bodyOption = "-F"
        case .upload: bodyOption = "-T"
        }
        if head, let bodyOption, !(dataInQuery && bodyOption == "-d") {
            throw UsageError("-I (HEAD) and \(bodyOption) (a body) do not go together")
        }
        if dataInQuery, let bodyOption, bodyOption != "-d" { throw UsageError("-G puts -d data into the URL: not with \(bodyOption)") }
    }

    /// The method curl would use: -X, else HEAD for -I, PUT for -T, POST for a body, GET.
    var effectiveMethod: String {
        if let method { return method }
        if head { return "HEAD" }
        switch body {
        case .none: return "GET"
        case .data: return dataInQuery ? "GET" : "POST"
        case .form: return "POST"
        case .upload: return "PUT"
        }
    }

    /// The request for `url`; opens the file a body streams from (throws when it cannot).
    func request(for url: URL) throws -> HTTPRequest {
        var url = url
        var fields = headers
        func add(_ name: String, _ value: String) {
            if !fields.contains(where: { $0.name.equalsIgnoringASCIICase(name) }) { fields.append((name, value)) }
        }
        if let userAgent { add("User-Agent", userAgent) }
        if let referer { add("Referer", referer) }
        if let credentials { add("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()) }
        if let range { add("Range", "bytes=" + range) }
        var request = HTTPRequest(url: url, method: effectiveMethod)
        switch body {
        case .none: break
        case .data(let data, let json):
            if dataInQuery {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                let query = String(decoding: data, as: UTF8.self)
                components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + query } ?? query
                url = components.url ?? url
            } else {
                add("Content-Type", json ? "application/json" : "application/x-www-form-urlencoded")
                if json { add("Accept", "application/json") }
                request.body = data
            }
        case .form(let form):
            add("Content-Type", form.contentType)
            request.bodyStream = try form.bodyStream()
        case .upload(let path):
            if path == "-" {
                request.bodyStream = try RequestBodyStream([.fileDescriptor(STDIN_FILENO)])
            } else {
                // As curl: a URL ending in "/" gets the file's name.
                if url.path.isEmpty || url.hasDirectoryPath { url = url.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent) }
                request.bodyStream = try RequestBodyStream([.file(URL(fileURLWithPath: path))])
            }
        }
        request.url = url
        request.headerFields = fields
        request.crossOriginRedirects = locationTrusted ? .trusted : .sameOriginOnlyForMethodAndBody
        request.refersOnRedirects = autoReferer
        request.postKeptOnRedirects = postKeptOnRedirects
        return request
    }

    /// Appends one -d-like value: "@FILE" read (when `at`), CR and LF stripped from a file for -d;
    /// pieces joined by "&", --json pieces as they are.
    private mutating func addData(_ value: String, option: String, at: Bool, strip: Bool, json: Bool = false, standardInput: () -> Data) throws {
        var piece: Data
        if at, value.hasPrefix("@") {
            piece = try ArgumentFile.read(String(value.dropFirst()), option: option, standardInput: standardInput)
            if strip { piece.removeAll { $0 == 0x0D || $0 == 0x0A } }
        } else {
            piece = Data(value.utf8)
        }
        switch body {
        case .none: body = .data(piece, json: json)
        case .data(var data, let wasJSON):
            if !(json && wasJSON) { data += Data("&".utf8) }
            body = .data(data + piece, json: json || wasJSON)
        default: throw Self.oneBody(option)
        }
    }

    /// --data-urlencode's forms: "content", "=content", "name=content", "@file", "name@file".
    private func urlencoded(_ value: String, standardInput: () -> Data) throws -> String {
        let equals = value.firstIndex(of: "="), at = value.firstIndex(of: "@")
        if let at, equals.map({ at < $0 }) ?? true {
            let name = String(value[..<at])
            let content = try ArgumentFile.read(String(value[value.index(after: at)...]), option: "--data-urlencode", standardInput: standardInput)
            return (name.isEmpty ? "" : name + "=") + Self.percentEncoded(content)
        }
        guard let equals else { return Self.percentEncoded(Data(value.utf8)) }
        let name = String(value[..<equals])
        let content = Self.percentEncoded(Data(value[value.index(after: equals)...].utf8))
        return name.isEmpty ? content : name + "=" + content
    }

    /// Every byte but ALPHA, DIGIT and -._~ as %XX (curl_easy_escape).
    static func percentEncoded(_ data: Data) -> String {
        var text = ""
        for byte in data {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && (Character(scalar).isLetter || Character(scalar).isNumber)) || "-._~".unicodeScalars.contains(scalar) {
                text.unicodeScalars.append(scalar)
            } else {
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }

    /// "0-499", "500-", "-500", "0-1,5-9": first <= last where both are given.
    static func isByteRangeSet(_ text: String) -> Bool {
        let ranges = text.split(separator: ",", omittingEmptySubsequences: false)
        return !ranges.isEmpty && ranges.allSatisfy { range in
            let bounds = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } && $0.count <= 18 }),
                  !(bounds[0].isEmpty && bounds[1].isEmpty) else { return false }
            guard let first = Int(bounds[0]), let last = Int(bounds[1]) else { return true }
            return first <= last
        }
    }

    private static func oneLine(_ value: String, option: String) throws -> String {
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { throw UsageError("\(option) has a line break in its value") }
        return value
    }

    private static func oneBody(_ option: String) -> UsageError {
        UsageError("\(option) cannot be combined with another kind of body (-d/--json, -F and -T each make one on their own)")
    }
}
