/// Turns a relay's non-2xx answer to CONNECT into an error naming the right hop: when the target
/// is the next relay and the answer says it could not be reached (502, 503, 504), the error names
/// that next hop; anything else names the hop that answered.
enum ConnectRefusal {
    static func error(status: Int, reason: String, hop: HopDescription, nextHop: HopDescription?) -> RelayError {
        if let nextHop, (502...504).contains(status) {
            return RelayError(hop: nextHop, cause: .unreachable(via: hop.index, status: status, reason: reason))
        }
        return RelayError(hop: hop, cause: .tunnelRefused(status: status, reason: reason))
    }

    /// HTTP/2 has no reason phrases; these stand in for the ones users know.
    static func reasonPhrase(_ status: Int) -> String {
        [400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
         407: "Proxy Authentication Required", 429: "Too Many Requests", 500: "Internal Server Error",
         502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"][status] ?? ""
    }
}
