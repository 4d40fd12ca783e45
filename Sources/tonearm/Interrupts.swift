#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT/SIGTERM as a flag the main loop polls (set from the signal handler, async-signal-safe).
enum Interrupts {
    static let received = Atomic<Bool>(false)

    /// Installs the handlers and unblocks the two signals (a parent may have spawned us
    /// with them blocked, as processes started from GCD threads are). Call once at start-up.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in Interrupts.received.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
