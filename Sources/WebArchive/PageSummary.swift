import Foundation
import HeadlessPage

/// The JSON summary of a page load that `relayfetch page --json` prints.
public enum PageSummary {
    public static func data(for page: Page) throws -> Data {
        let object: [String: Any] = [
            "url": page.url.absoluteString,
            "status": page.statusCode,
            "title": page.document.title ?? NSNull(),
            "loadTimeSeconds": page.loadTime,
            "totalBytes": page.totalBytes,
            "relayChain": page.main.exchange.relayChain,
            "resources": page.resources.map { resource -> [String: Any] in
                var item: [String: Any] = ["url": resource.url.absoluteString, "kind": resource.kind.rawValue,
                                           "status": resource.statusCode ?? NSNull(), "bytes": resource.size,
                                           "seconds": resource.exchange.duration, "relayChain": resource.exchange.relayChain]
                if let error = resource.error { item["error"] = error }
                return item
            },
            "failed": page.failedResources.count,
            "limitsReached": page.limitsReached.map(\.description),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) + Data("\n".utf8)
    }
}
