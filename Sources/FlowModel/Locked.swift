import Synchronization

/// A value shared between threads, behind a `Mutex`: the one lock box of the package
/// (a reference, so concurrent closures can capture it).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    public var value: Value { mutex.withLock { $0 } }
}

/// Fixed slots written once each from concurrent iterations (`DispatchQueue.concurrentPerform`),
/// read back in index order, so results never depend on scheduling.
public final class OrderedSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>

    public init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    public func set(_ index: Int, _ value: Value) { slots.withLock { $0[index] = value } }

    public func get(_ index: Int) -> Value { slots.withLock { $0[index]! } }

    /// Every slot, in index order (each must have been set).
    public var values: [Value] { slots.withLock { $0.map { $0! } } }
}
