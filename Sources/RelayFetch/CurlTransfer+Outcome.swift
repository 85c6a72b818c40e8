import HTTPCore
import Foundation
import RelayTransport
internal import CCurl

/// How a transfer ended, told in terms of who failed: the time limits, the origin, or the relay
/// hop that refused, cut or ended the tunnel under it (the route says which hop).
extension CurlTransfer {
    /// The outcome once libcurl reports the transfer done with `code`.
    func result(_ code: CURLcode) -> Result<(Data, HTTPResponse), FetchError> {
        route.transferEnded(self)
        let (failure, end) = tunnelStatus?.snapshot ?? (nil, nil)
        if let failure { return .failure(FetchError(relay: failure)) }
        if limit.exceeded {
            let budget = request.byteBudget.flatMap { $0.isExhausted ? $0.limit : nil }
            return .failure(FetchError(.responseTooLarge(limit: budget ?? limit.maximum)))
        }
        guard code == CURLE_OK || bodySkipped else {
            return .failure(failureError(code, tunnelEnd: end ?? route.tunnelEnd(under: self)))
        }
        var status = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var response = HTTPResponse(statusCode: status, httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? "HTTP/2" : "HTTP/1.1",
                                    headerFields: ResponseHead.fields(headerLines), url: request.url, relayHops: route.hopNames)
        if !bodySkipped, case .relayClosed(let hop, originStreamCut: true) = end, response.bodyEndsAtConnectionClose(method: request.method) {
            return .failure(truncatedBody(through: hop))
        }
        if !bodySkipped, let flag = originCloseNotify, !flag.received {
            return .failure(truncatedBody(through: route.lastHop))
        }
        response.timings = timings()
        response.relayHopTimings = tunnelStatus?.hopTimings ?? proxyHopReports.map(RelayHopTiming.init)
        response.bodySkipped = bodySkipped
        return .success((body, response))
    }

    /// A body that ended with the connection, but without the origin's close_notify: told as the
    /// last hop's when it came through relays (`hop`), else as the origin's.
    private func truncatedBody(through hop: HopDescription?) -> FetchError {
        let truncated = "(no close_notify); the body of \(limit.received) bytes is truncated"
        guard let hop else {
            return FetchError(.transfer("the TLS stream from \(request.url.host ?? ""):\(request.url.portOrDefault) was cut \(truncated)"))
        }
        return FetchError(relay: RelayError(hop: hop, cause: .tunnelEndedEarly("the origin's TLS stream was cut \(truncated)")))
    }

    /// libcurl's failure: the idle or total time limit, a hop (as the route tells it), the
    /// relay hop that ended the tunnel under the exchange, or the origin.
    private func failureError(_ code: CURLcode, tunnelEnd: TunnelEnd?) -> FetchError {
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let origin = "\(request.url.host ?? ""):\(request.url.portOrDefault)"
        if let why = request.bodyStream?.failure { return FetchError(.transfer(why)) }
        if idleClock.timedOut {
            return FetchError(.idleTimeout(seconds: idleClock.timeout, peer: origin, route: route.hopNames, stalled: nil))
        }
        if let error = route.failure(code, text: text, of: self) { return error }
        if code == CURLE_OPERATION_TIMEDOUT { return FetchError(.timedOut(maximumTime)) }
        if code == CURLE_OUT_OF_MEMORY {
            // libcurl 7.88 refuses a header block over 100 KiB with this code and no message.
            return FetchError(.transfer("the response headers from \(origin) are too large (libcurl accepts at most 100 KiB)"))
        }
        switch tunnelEnd {
        case .relayClosed(let hop, _):
            return FetchError(relay: RelayError(hop: hop, cause: .tunnelEndedEarly(text)))
        case .failed(let error):
            return FetchError(relay: error)
        case .clientClosed, nil:
            return FetchError(.transfer(text))
        }
    }

    /// libcurl's cumulative phase times turned into HAR's per-phase durations.
    private func timings() -> HTTPTimings {
        func seconds(_ info: CURLINFO) -> Double {
            var value: curl_off_t = 0
            _ = rf_curl_easy_getinfo_off(easy, info, &value)
            return Double(value) / 1_000_000
        }
        let dns = seconds(CURLINFO_NAMELOOKUP_TIME_T), connect = seconds(CURLINFO_CONNECT_TIME_T)
        let tls = seconds(CURLINFO_APPCONNECT_TIME_T), sent = seconds(CURLINFO_PRETRANSFER_TIME_T)
        let firstByte = seconds(CURLINFO_STARTTRANSFER_TIME_T), total = seconds(CURLINFO_TOTAL_TIME_T)
        var timings = HTTPTimings()
        timings.dns = dns > 0 ? dns : -1
        timings.connect = connect > dns ? connect - dns : -1
        timings.ssl = tls > connect ? tls - connect : -1
        timings.send = max(0, sent - max(tls, connect, dns))
        timings.wait = max(0, firstByte - sent)
        timings.receive = max(0, total - firstByte)
        timings.total = total
        return timings
    }

    /// Whether libcurl has started sending the request (so any tunnel under it is up).
    var requestStarted: Bool {
        var sent: curl_off_t = 0
        _ = rf_curl_easy_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &sent)
        return sent > 0
    }

    /// The errno of libcurl's last failed socket call.
    var osErrno: Int {
        var value = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &value)
        return value
    }

    /// Connections libcurl opened for this transfer.
    var connectionsOpened: Int {
        var connects = 0
        _ = rf_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        return connects
    }
}
