import Foundation
import RelayFetch

extension PageLoader {
    /// The subresources of an HTML document already fetched (`body`, as `response` brought it):
    /// what `load` fetches after the HTML (in the options' mode: what a browser loads, or in
    /// complete mode style sheets and what they import, scripts, images, frames...), within the
    /// same limits, without fetching the HTML again. For callers that
    /// fetch pages themselves, such as a crawler archiving each page with its requisites.
    /// Throws when the body cannot be parsed as HTML; a subresource that fails has its error.
    public func requisites(of body: Data, response: HTTPResponse) async throws -> (resources: [PageResource], limitsReached: [PageLimit]) {
        let document = try parse(body, response: response)
        let budget = ByteBudget(limit: options.maximumPageBytes)
        budget.add(body.count)
        let scheduler = SubresourceScheduler(loader: self, pageURL: response.url, deadline: Date().addingTimeInterval(options.pageTimeout),
                                             budget: budget, progress: nil)
        scheduler.markSeen(response.url)
        submitSubresources(of: document, url: response.url, defaultPolicy: options.referrerPolicy, to: scheduler)
        let resources = await scheduler.finish()
        return (resources, scheduler.limitsReached)
    }
}
