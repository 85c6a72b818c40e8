import Foundation
import RelayFetch

/// What one URL's transfer came to, for `-w` and the exit status: the response (if one came),
/// the error (if any), sizes and times as curl counts them.
struct TransferReport {
    var index = 0
    var url: URL
    var method: String
    var response: HTTPResponse?
    var error: String?
    var exitCode: Int32 = 0
    /// From the first try's start to the end of the last one's body.
    var seconds = 0.0
    /// Body bytes received (decoded), headers not counted.
    var bytesDownloaded = 0
    var headerSize = 0
    var bytesUploaded = 0
    var outputPath: String?
    var retries = 0

    /// The response's Location when it is a redirect that was not followed.
    var redirectURL: String? {
        guard let response, [301, 302, 303, 307, 308].contains(response.statusCode),
              let location = response.value(forHeaderField: "Location") else { return nil }
        return URL(string: location, relativeTo: response.url)?.absoluteURL.absoluteString
    }

    /// The relays the final exchange went through, nearest first; "direct" without any.
    var relayChain: String { response.map { $0.relayHops.isEmpty ? "direct" : $0.relayHops.joined(separator: " -> ") } ?? "" }

    /// The size of the status line and fields as HTTP/1.1 would write them (what -i prints).
    static func headerSize(of response: HTTPResponse) -> Int { head(of: response).count }

    /// The status line and header fields, as -i prints them before the body.
    static func head(of response: HTTPResponse) -> Data {
        var text = "\(response.httpVersion) \(response.statusCode)\r\n"
        for field in response.headerFields { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// Each -w variable's value: numbers as numbers (for %{json}), the rest as text.
    var variables: [String: Any] {
        let timings = response?.timings ?? HTTPTimings()
        let namelookup = max(timings.dns, 0), connect = namelookup + max(timings.connect, 0)
        let appconnect = connect + max(timings.ssl, 0), pretransfer = appconnect + timings.send
        let version = response.map { $0.httpVersion.hasPrefix("HTTP/") ? String($0.httpVersion.dropFirst(5)) : $0.httpVersion } ?? "0"
        let seconds = max(self.seconds, 0.000_001)
        return [
            "content_type": response?.value(forHeaderField: "Content-Type") ?? "",
            "errormsg": error ?? "",
            "exitcode": Int(exitCode),
            "filename_effective": outputPath ?? "",
            "http_code": response?.statusCode ?? 0,
            "response_code": response?.statusCode ?? 0,
            "http_version": version,
            "method": method,
            "num_headers": response?.headerFields.count ?? 0,
            "num_redirects": response?.redirectCount ?? 0,
            "num_retries": retries,
            "redirect_url": redirectURL ?? "",
            "relay_chain": relayChain,
            "scheme": (response?.url ?? url).scheme ?? "",
            "size_download": bytesDownloaded,
            "size_header": response.map(Self.headerSize) ?? 0,
            "size_upload": bytesUploaded,
            "speed_download": Int(Double(bytesDownloaded) / seconds),
            "speed_upload": Int(Double(bytesUploaded) / seconds),
            "time_namelookup": namelookup,
            "time_connect": connect,
            "time_appconnect": appconnect,
            "time_pretransfer": pretransfer,
            "time_starttransfer": pretransfer + timings.wait,
            "time_total": self.seconds,
            "url": url.absoluteString,
            "url_effective": (response?.url ?? url).absoluteString,
            "urlnum": index,
        ]
    }
}
