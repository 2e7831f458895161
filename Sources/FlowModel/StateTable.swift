/// A value per state of a `StateMachine`, for code that looks states up by number many times
/// (layouts, graph walks): the values of states sit in an array by the state's position in
/// `states`, so a lookup is an index, not a hash of the number (Int hashing and dictionary
/// probes were about 2 % of a site build). A number that is not a state (a dangling target) is
/// kept aside in a dictionary, so the table holds what a `[Int: Value]` would.
///
/// Inlinable, so other modules specialize it for their values (a generic table called through
/// value witnesses cost more than the dictionary).
public struct StateTable<Value> {
    @usableFromInline let states: [Int]
    @usableFromInline var slots: [Value?]
    @usableFromInline var others: [Int: Value] = [:]

    @inlinable
    public init(states: [Int]) {
        self.states = states
        slots = [Value?](repeating: nil, count: states.count)
    }

    /// Where `state` is in `states` (ascending, each once): at `state - states[0]` when the
    /// numbers run without gaps (most flows), otherwise found by binary search.
    @inlinable
    public static func position(of state: Int, in states: [Int]) -> Int? {
        guard let first = states.first else { return nil }
        let guess = state &- first
        if guess >= 0, guess < states.count, states[guess] == state { return guess }
        var low = 0, high = states.count
        while low < high {
            let middle = (low + high) / 2
            if states[middle] < state { low = middle + 1 } else { high = middle }
        }
        return low < states.count && states[low] == state ? low : nil
    }

    @inlinable
    public subscript(state: Int) -> Value? {
        get {
            if let position = Self.position(of: state, in: states) { return slots[position] }
            return others.isEmpty ? nil : others[state]
        }
        set {
            if let position = Self.position(of: state, in: states) { slots[position] = newValue } else { others[state] = newValue }
        }
    }

    @inlinable
    public subscript(state: Int, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[state] ?? defaultValue() }
        _modify {
            if let position = Self.position(of: state, in: states) {
                if slots[position] == nil { slots[position] = defaultValue() }
                yield &slots[position]!
            } else {
                yield &others[state, default: defaultValue()]
            }
        }
    }

    /// Every value: the states' in state order, then the others' (in no order).
    @inlinable
    public var values: [Value] { slots.compactMap { $0 } + others.values }
}

extension StateTable: Sendable where Value: Sendable {}
