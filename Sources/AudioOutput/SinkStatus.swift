import Synchronization

/// What a sink publishes to other threads: its underrun count and output latency.
///
/// Written only by the render thread that owns the sink (inside `open`/`write`/`close`);
/// read by any thread. Lock-free and allocation-free (atomics; the latency is stored as
/// the bit pattern of a `Double`).
package final class SinkStatus: Sendable {
    private let latencyBits = Atomic<UInt64>(0)
    private let xrunCount = Atomic<Int>(0)

    package init() {}

    /// Seconds from the next frame written until it reaches the speaker.
    package var outputLatency: Double { Double(bitPattern: latencyBits.load(ordering: .relaxed)) }

    /// Underruns counted so far.
    package var xruns: Int { xrunCount.load(ordering: .relaxed) }

    /// Render thread only.
    package func setLatency(_ seconds: Double) {
        latencyBits.store(seconds.bitPattern, ordering: .relaxed)
    }

    /// Render thread only.
    package func countXrun() {
        xrunCount.wrappingAdd(1, ordering: .relaxed)
    }
}
