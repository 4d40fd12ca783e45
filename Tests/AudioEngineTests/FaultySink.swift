import AudioCore
import Foundation
import Synchronization

/// A test-only output that keeps time like the null sink — each `write` sleeps until the
/// absolute deadline of the frames written so far since `open` — and fails on demand:
/// `loseDevice(refusingOpens:)` makes the next `write` throw `OutputError(.deviceLost, …)`
/// and the next `n` calls of `open` throw `.openFailed`; after that `open` succeeds again.
///
/// Thread rules: `open`, `write` and `close` on the engine's render thread only (as
/// `OutputSink` requires); the fault controls and counters from any thread (atomics).
final class FaultySink: OutputSink, @unchecked Sendable {
    let format: AudioFormat
    let periodFrames: Int
    var description: OutputDescription { OutputDescription(kind: "faulty", name: "test") }
    var outputLatency: Double { 0 }
    var xruns: Int { 0 }

    /// The next write throws while this is set; a successful `open` clears it.
    private let failing = Atomic<Bool>(false)
    private let opensToRefuse = Atomic<Int>(0)
    /// Calls of `open` so far, and how many succeeded.
    let openAttempts = Atomic<Int>(0)
    let opens = Atomic<Int>(0)
    /// Calls of `write` that threw.
    let failedWrites = Atomic<Int>(0)

    // Render thread only.
    private var anchor: UInt64 = 0
    private var written: UInt64 = 0

    init(format: AudioFormat, periodFrames: Int = 256) {
        self.format = format
        self.periodFrames = periodFrames
    }

    /// From the test: the device goes away now; the next `refusingOpens` opens fail.
    func loseDevice(refusingOpens: Int) {
        opensToRefuse.store(refusingOpens, ordering: .relaxed)
        failing.store(true, ordering: .releasing)
    }

    func open() throws {
        openAttempts.add(1, ordering: .relaxed)
        if opensToRefuse.load(ordering: .acquiring) > 0 {
            opensToRefuse.subtract(1, ordering: .relaxed)
            throw OutputError(.openFailed, "faulty sink: open refused")
        }
        failing.store(false, ordering: .releasing)
        anchor = MonotonicClock.nanoseconds()
        written = 0
        opens.add(1, ordering: .relaxed)
    }

    func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        if failing.load(ordering: .acquiring) {
            failedWrites.add(1, ordering: .relaxed)
            throw OutputError(.deviceLost, "faulty sink: device unplugged")
        }
        written += UInt64(frames)
        MonotonicClock.sleep(until: anchor + written * 1_000_000_000 / UInt64(format.sampleRate))
    }

    func close() {}
}
