import AudioCore

/// The clock of a simulated sound card: a ring buffer of `bufferFrames` frames that the
/// "device" plays at exactly `sampleRate` frames per second of CLOCK_MONOTONIC, starting
/// at the first write (and restarting after an underrun, like `snd_pcm_recover` + start).
///
/// Shared by `NullSink` and `WAVFileSink` so that both block in `write` exactly as a real
/// device would. Every deadline is computed from the start instant plus a frame count in
/// integer nanoseconds, never by accumulating sleeps, so the pace does not drift.
///
/// A plain value owned by the render thread (mutated only there); no allocation, no locks.
package struct DevicePacer: Sendable {
    /// What `plan` decided for one write.
    package struct Step: Equatable, Sendable {
        /// The device had played past everything written before this write (the clock restarted).
        package var underrun: Bool
        /// Sleep until this CLOCK_MONOTONIC instant before the frames fit; nil if they fit now.
        package var wakeAt: UInt64?

        package init(underrun: Bool, wakeAt: UInt64?) {
            self.underrun = underrun
            self.wakeAt = wakeAt
        }
    }

    package let sampleRate: Int
    package let bufferFrames: Int

    /// CLOCK_MONOTONIC instant at which the device played frame 0 of the current run.
    package private(set) var startNanoseconds: UInt64 = 0
    /// Frames written since the current run started.
    package private(set) var framesWritten: Int = 0
    /// Whether the device clock is running (a write happened since `init`/`stop`).
    package private(set) var isRunning = false

    package init(sampleRate: Int, bufferFrames: Int) {
        precondition(sampleRate > 0 && bufferFrames > 0, "DevicePacer needs a positive rate and buffer")
        self.sampleRate = sampleRate
        self.bufferFrames = bufferFrames
    }

    /// Frames the device has played by `now` in the current run (0 when stopped).
    package func playedFrames(at now: UInt64) -> Int {
        guard isRunning, now > startNanoseconds else { return 0 }
        let elapsed = now - startNanoseconds
        let rate = UInt64(sampleRate)
        return Int((elapsed / 1_000_000_000) * rate + (elapsed % 1_000_000_000) * rate / 1_000_000_000)
    }

    /// The first instant at which `playedFrames` reaches `frame` (rounded up to the nanosecond).
    package func instant(ofFrame frame: Int) -> UInt64 {
        let f = UInt64(max(frame, 0)), rate = UInt64(sampleRate)
        return startNanoseconds + (f / rate) * 1_000_000_000 + ((f % rate) * 1_000_000_000 + rate - 1) / rate
    }

    /// Frames written but not yet played at `now`.
    package func fill(at now: UInt64) -> Int {
        isRunning ? max(0, framesWritten - playedFrames(at: now)) : 0
    }

    /// Accounts for writing `frames` at `now`: detects an underrun (and restarts the clock),
    /// and says until when the writer must block for the frames to fit in the buffer, i.e.
    /// until the fill is at most `bufferFrames − frames`.
    package mutating func plan(frames: Int, now: UInt64) -> Step {
        var underrun = false
        if !isRunning {
            isRunning = true
            startNanoseconds = now
            framesWritten = 0
        } else if playedFrames(at: now) > framesWritten {
            underrun = true
            startNanoseconds = now
            framesWritten = 0
        }
        let mustHavePlayed = framesWritten + frames - bufferFrames
        var wake: UInt64? = nil
        if mustHavePlayed > 0 && playedFrames(at: now) < mustHavePlayed {
            wake = instant(ofFrame: mustHavePlayed)
        }
        framesWritten += frames
        return Step(underrun: underrun, wakeAt: wake)
    }

    /// `plan` at the current time, then blocks until the frames fit. Returns whether an
    /// underrun happened. Render thread; no allocation.
    package mutating func write(frames: Int) -> Bool {
        let step = plan(frames: frames, now: MonotonicClock.nanoseconds())
        if let wake = step.wakeAt { MonotonicClock.sleep(until: wake) }
        return step.underrun
    }

    /// Blocks until everything written has played (like `snd_pcm_drain`), then stops.
    package mutating func drain() {
        if isRunning { MonotonicClock.sleep(until: instant(ofFrame: framesWritten)) }
        stop()
    }

    /// Stops the device clock; the next write starts a new run.
    package mutating func stop() {
        isRunning = false
        framesWritten = 0
        startNanoseconds = 0
    }
}
