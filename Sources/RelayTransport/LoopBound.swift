/// A value that belongs to one event loop, made `Sendable` so a callback from another thread
/// can carry it back there: only the loop's thread may take it out, which is checked.
struct LoopBound<Value>: @unchecked Sendable {
    // Guarded by confinement: `value` is read only on `loop`'s thread (the getter traps
    // otherwise); other threads merely hold and pass on the box.
    private let stored: Value
    let loop: EventLoop

    init(_ value: Value, loop: EventLoop) {
        stored = value
        self.loop = loop
    }

    /// The value; call this on the loop only.
    var value: Value {
        precondition(loop.inLoop, "a loop-bound value was taken off its loop")
        return stored
    }
}

extension EventLoop {
    /// Turns `callback`, which belongs to this loop, into one any thread may call: each call
    /// hops onto the loop and runs `callback` there (nothing runs once the loop has stopped).
    func hopping<Result: Sendable>(_ callback: @escaping (Result) -> Void) -> @Sendable (Result) -> Void {
        let bound = LoopBound(callback, loop: self)
        return { result in bound.loop.execute { bound.value(result) } }
    }
}
