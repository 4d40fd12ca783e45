#if canImport(Glibc)
import Glibc
#endif

/// Starts a joinable pthread for real-time work (the render thread), asking for
/// SCHED_FIFO and carrying on at normal priority when the system refuses.
///
/// The body is an object (not a capturing closure) handed over through `Unmanaged`.
/// Call from any thread; `join` from the thread that started it.
package final class RealtimeThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: Body
    /// Whether SCHED_FIFO was granted.
    package private(set) var isRealtime = false

    /// What the thread runs; `run` is called once on the new thread.
    package final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void
        package init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    package init(name: String, priority: Int32 = 70, _ run: @escaping @Sendable () -> Void) {
        body = Body(run)
        let context = Unmanaged.passRetained(body).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }
        var param = sched_param()
        param.sched_priority = priority
        pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)
        pthread_attr_setschedparam(&attributes, &param)
        if pthread_create(&thread, &attributes, entry, context) == 0 {
            isRealtime = true
        } else {
            var plain = pthread_attr_t()
            pthread_attr_init(&plain)
            defer { pthread_attr_destroy(&plain) }
            let rc = pthread_create(&thread, &plain, entry, context)
            precondition(rc == 0, "pthread_create failed: \(rc)")
        }
    }

    /// Waits for the thread to return.
    package func join() {
        pthread_join(thread, nil)
    }
}
