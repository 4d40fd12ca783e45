import AudioCore

/// An output that writes everything it plays to a 32-bit float WAV file
/// (`--output wav:PATH`), so tests can measure exactly what a listener would hear.
///
/// By default it is paced like a sound card (the same `DevicePacer` as `NullSink`: `write`
/// blocks until the simulated buffer has room, late writes count as underruns); with
/// `paced: false` it writes as fast as it is fed, for offline rendering. The header is
/// patched about once per second of audio and on `close`, so the file is valid mid-run.
///
/// `open`, `write` and `close` are called by the owning render thread only (which may block
/// on disk I/O here — acceptable for this test device); the other properties may be read
/// from any thread. `write` does not allocate or lock.
package final class WAVFileSink: OutputSink, @unchecked Sendable {
    package let path: String
    package let format: AudioFormat
    package let periodFrames: Int
    package let periods: Int
    package let paced: Bool
    package var description: OutputDescription { OutputDescription(kind: "wav", name: path) }
    package var outputLatency: Double { status.outputLatency }
    package var xruns: Int { status.xruns }

    private let status = SinkStatus()
    /// Render thread only (from here down).
    private var pacer: DevicePacer
    private var writer: WAVFileWriter?
    private var framesSincePatch = 0

    package init(path: String, format: AudioFormat, periodFrames: Int = 256, periods: Int = 4, paced: Bool = true) {
        precondition(format.sampleRate > 0 && format.channels > 0 && periodFrames > 0 && periods > 0,
                     "WAVFileSink needs a positive rate, channel count, period and period count")
        self.path = path
        self.format = format
        self.periodFrames = periodFrames
        self.periods = periods
        self.paced = paced
        self.pacer = DevicePacer(sampleRate: format.sampleRate, bufferFrames: periodFrames * periods)
    }

    /// Creates (truncates) the file. Throws `OutputError(.openFailed, …)` if it cannot.
    package func open() throws {
        close()
        // Room for a quarter second (and at least 16 periods) between disk writes.
        let bytesPerFrame = format.channels * 4
        let w = WAVFileWriter(path: path, sampleRate: format.sampleRate, channels: format.channels,
                              bufferBytes: max(format.sampleRate / 4, periodFrames * 16) * bytesPerFrame)
        try w.create()
        writer = w
        framesSincePatch = 0
        pacer.stop()
        status.setLatency(0)
    }

    package func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        guard let writer else { throw OutputError(.writeFailed, "WAV file '\(path)' is not open") }
        if paced {
            if pacer.write(frames: frames) { status.countXrun() }
            status.setLatency(Double(pacer.fill(at: MonotonicClock.nanoseconds())) / Double(format.sampleRate))
        }
        try writer.append(samples, frames: frames)
        framesSincePatch += frames
        if framesSincePatch >= format.sampleRate {
            framesSincePatch = 0
            try writer.flush()
            try writer.patchHeader()
        }
    }

    /// Waits until the simulated device has played everything (when paced), then finishes
    /// the file. Idempotent. An I/O error here is dropped (the file keeps its last header).
    package func close() {
        guard let w = writer else { return }
        writer = nil
        if paced { pacer.drain() }
        try? w.close()
        status.setLatency(0)
    }
}
