#if canImport(Glibc)
import Glibc
#endif

/// A POSIX semaphore. `signal` is safe on the render thread (no allocation, no lock
/// held across a wait); `wait` is for workers and offline rendering. Any thread.
package final class PosixSemaphore: @unchecked Sendable {
    private let sem: UnsafeMutablePointer<sem_t>

    package init(_ value: UInt32 = 0) {
        sem = .allocate(capacity: 1)
        sem_init(sem, 0, value)
    }

    deinit {
        sem_destroy(sem)
        sem.deallocate()
    }

    package func signal() { sem_post(sem) }

    /// Waits for a signal or until `milliseconds` pass; true if signalled.
    @discardableResult
    package func wait(milliseconds: Int) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(milliseconds) * 1_000_000
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var ns = Int(ts.tv_nsec) + milliseconds * 1_000_000
        ts.tv_sec += ns / 1_000_000_000
        ns %= 1_000_000_000
        ts.tv_nsec = ns
        while sem_timedwait(sem, &ts) != 0 {
            if errno != EINTR || MonotonicClock.nanoseconds() >= deadline { return false }
        }
        return true
    }
}
