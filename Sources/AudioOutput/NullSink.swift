import AudioCore

/// A silent output that keeps time exactly like a sound card: `write` blocks until a
/// simulated buffer of `periods × periodFrames` frames has room, the buffer drains at
/// `format.sampleRate` by CLOCK_MONOTONIC, and a late write counts as an underrun.
///
/// Used when there is no sound card (`--output null`, or `auto` without ALSA) and in tests.
/// `open`, `write` and `close` are called by the owning render thread only; the other
/// properties may be read from any thread. `write` neither allocates nor locks.
package final class NullSink: OutputSink, @unchecked Sendable {
    package let format: AudioFormat
    package let periodFrames: Int
    /// Periods in the simulated device buffer.
    package let periods: Int
    package var description: OutputDescription { OutputDescription(kind: "null", name: "null") }
    package var outputLatency: Double { status.outputLatency }
    package var xruns: Int { status.xruns }

    private let status = SinkStatus()
    /// Render thread only.
    private var pacer: DevicePacer

    package init(format: AudioFormat, periodFrames: Int = 256, periods: Int = 4) {
        precondition(format.sampleRate > 0 && format.channels > 0 && periodFrames > 0 && periods > 0,
                     "NullSink needs a positive rate, channel count, period and period count")
        self.format = format
        self.periodFrames = periodFrames
        self.periods = periods
        self.pacer = DevicePacer(sampleRate: format.sampleRate, bufferFrames: periodFrames * periods)
    }

    package func open() throws {
        pacer.stop()
        status.setLatency(0)
    }

    package func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        if pacer.write(frames: frames) { status.countXrun() }
        status.setLatency(Double(pacer.fill(at: MonotonicClock.nanoseconds())) / Double(format.sampleRate))
    }

    package func close() {
        pacer.drain()
        status.setLatency(0)
    }
}
