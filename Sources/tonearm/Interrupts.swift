#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT/SIGTERM as a flag the main loop polls (set from the signal handler, async-signal-safe).
enum Interrupts {
    static let received = Atomic<Bool>(false)

    /// Installs the handlers. Call once at start-up.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in Interrupts.received.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}
