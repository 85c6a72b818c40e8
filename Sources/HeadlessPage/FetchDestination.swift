import HTTPCore
import Foundation
import RelayFetch

/// The request headers Chromium sends per fetch destination (Fetch Metadata, `Accept`, and
/// `Origin` for CORS-mode requests such as fonts), so a page's requests look like a browser's:
/// the values were read from the origin's log of Chromium 156 loading the same pages.
struct FetchDestination {
    let destination: String
    let mode: String
    let accept: String

    static let documentAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    static let imageAccept = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    /// The top-level document a user navigated to.
    static let document = FetchDestination(destination: "document", mode: "navigate", accept: documentAccept)

    init(destination: String, mode: String, accept: String) {
        self.destination = destination
        self.mode = mode
        self.accept = accept
    }

    init(_ reference: SubresourceReference) {
        let extensionName = reference.url.pathExtension.lowercased()
        switch reference.element {
        case "embed": self.init(destination: "embed", mode: "navigate", accept: Self.documentAccept); return
        case "use": self.init(destination: "image", mode: "same-origin", accept: Self.imageAccept); return
        default: break
        }
        switch reference.kind {
        case .stylesheet: self.init(destination: "style", mode: "no-cors", accept: "text/css,*/*;q=0.1")
        case .image, .icon: self.init(destination: "image", mode: "no-cors", accept: Self.imageAccept)
        case .font: self.init(destination: "font", mode: "cors", accept: "*/*")
        case .script: self.init(destination: "script", mode: "no-cors", accept: "*/*")
        case .manifest: self.init(destination: "manifest", mode: "cors", accept: "*/*")
        case .frame: self.init(destination: "iframe", mode: "navigate", accept: Self.documentAccept)
        case .object: self.init(destination: "object", mode: "navigate", accept: Self.documentAccept)
        case .media where extensionName == "vtt": self.init(destination: "track", mode: "same-origin", accept: "*/*")
        case .media: self.init(destination: ["mp3", "ogg", "oga", "wav", "m4a", "flac", "opus"].contains(extensionName) ? "audio" : "video",
                               mode: "no-cors", accept: "*/*")
        case .preload where reference.element == "preload-style": self.init(destination: "style", mode: "no-cors", accept: "text/css,*/*;q=0.1")
        case .preload where reference.element == "preload-track" || extensionName == "vtt":
            self.init(destination: "track", mode: "same-origin", accept: "*/*")
        case .preload: self.init(destination: "empty", mode: "cors", accept: "*/*")
        case .other: self.init(destination: "empty", mode: "no-cors", accept: "*/*")
        }
    }

    /// `Accept`, `Sec-Fetch-Dest/Mode/Site` (and `Sec-Fetch-User` for a user's navigation), and
    /// `Origin` for CORS requests, for a request to `url` made by a document of `initiator`.
    func headerFields(for url: URL, initiator: URL?) -> HTTPFields {
        var fields: HTTPFields = [("Accept", accept)]
        if destination == "document" { fields.append(("Upgrade-Insecure-Requests", "1")) }
        fields += [("Sec-Fetch-Site", Self.site(of: url, from: initiator)), ("Sec-Fetch-Mode", mode), ("Sec-Fetch-Dest", destination)]
        if destination == "document" { fields.append(("Sec-Fetch-User", "?1")) }
        if mode == "cors", destination != "manifest", let initiator, let origin = initiator.serializedOrigin { fields.append(("Origin", origin)) }
        return fields
    }

    /// `none` for a user's navigation, else same-origin, same-site or cross-site.
    static func site(of url: URL, from initiator: URL?) -> String {
        guard let initiator else { return "none" }
        if url.originKey == initiator.originKey { return "same-origin" }
        guard url.scheme == initiator.scheme, let host = url.host?.lowercased(), let other = initiator.host?.lowercased() else { return "cross-site" }
        let site = PublicSuffixList.registrableDomain(host) ?? host
        return site == (PublicSuffixList.registrableDomain(other) ?? other) ? "same-site" : "cross-site"
    }
}
