import Synchronization

/// A value behind a mutex that several tasks share by reference (`Mutex` itself cannot be copied into them).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }
}
