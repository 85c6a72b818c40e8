import Foundation

/// A property every fuzz target asserts. Unlike `precondition` in an optimized build, it says
/// which property failed (on stderr, where libFuzzer's crash report goes) before it traps.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fuzzFailure(message(), file: file, line: line) }
}

/// Reports a broken property and traps, so libFuzzer saves the input.
func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("fuzz check failed at \(file):\(line): \(message)\n".utf8))
    fatalError()
}
