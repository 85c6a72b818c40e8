import XCTest
final class PlaceholderOHTTPTests: XCTestCase { func testNothing() {} }
