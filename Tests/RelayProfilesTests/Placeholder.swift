import XCTest
final class PlaceholderProfilesTests: XCTestCase { func testNothing() {} }
