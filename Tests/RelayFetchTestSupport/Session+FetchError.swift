import Foundation
import RelayFetch

extension Session {
    /// The error fetching `url` ends with, for tests of what must fail; nil when it succeeds (or
    /// fails with another error), so `XCTUnwrap` of it fails the test.
    public func fetchError(_ url: URL) async -> FetchError? {
        do {
            _ = try await data(from: url)
            return nil
        } catch {
            return error as? FetchError
        }
    }
}
