import Synchronization

/// A bounded lock-free single-producer/single-consumer queue of plain values.
///
/// Exactly one thread may push and exactly one (other) thread may pop. Neither side
/// allocates or locks, so the render thread may use either end. Storage is allocated once.
package final class SPSCQueue<Element: BitwiseCopyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Element>
    private let mask: Int
    private let head = Atomic<Int>(0)  // next slot to pop (owned by the consumer)
    private let tail = Atomic<Int>(0)  // next slot to push (owned by the producer)

    /// Creates a queue holding at least `minimumCapacity` elements (rounded up to a power of two).
    package init(minimumCapacity: Int) {
        var capacity = 2
        while capacity < minimumCapacity { capacity <<= 1 }
        storage = .allocate(capacity: capacity)
        mask = capacity - 1
    }

    deinit { storage.deallocate() }

    package var capacity: Int { mask + 1 }

    /// Approximate number of queued elements (exact from either owning thread's view of its own end).
    package var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Producer side: appends `element`; false when the queue is full.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t - head.load(ordering: .acquiring) > mask { return false }
        (storage + (t & mask)).initialize(to: element)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer side: removes the oldest element; nil when empty.
    package func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let element = storage[h & mask]
        head.store(h + 1, ordering: .releasing)
        return element
    }

    /// Consumer side: the oldest element without removing it.
    package func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        return storage[h & mask]
    }
}
