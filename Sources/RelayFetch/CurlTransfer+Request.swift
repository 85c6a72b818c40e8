import HTTPCore
import Foundation
internal import CCurl

/// The request side of a transfer: its method, body and header fields as libcurl sends them.
extension CurlTransfer {
    func configureRequest() {
        let method = request.method.uppercased()
        if method == "HEAD" {
            setLong(CURLOPT_NOBODY, 1)
        } else if method != "GET" || request.body != nil || request.bodyStream != nil {
            setString(CURLOPT_CUSTOMREQUEST, method)
        }
        if let body = request.body {
            setLong(CURLOPT_POST, 1)
            // The size first: without it libcurl would take the (binary) body for a C string.
            // libcurl copies the bytes, so they need not outlive this call.
            _ = rf_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = body.withUnsafeBytes { rf_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        for field in request.headerFields { headers = curl_slist_append(headers, "\(field.name): \(field.value)") }
        if headers != nil {
            lists.append(headers)
            _ = rf_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
        }
    }
}
