import AudioCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The render thread of a real-time engine: mixes a period, writes it to the sink, repeats;
/// the sink's blocking write paces the loop.
///
/// Device loss: when a write throws (`OutputError` `.deviceLost` or `.writeFailed`, or any
/// other error), the loop closes the sink, hands the reason over (lock-free) and counts a
/// loss; from then on it keeps the timeline running on the monotonic clock (one period per
/// period of wall time, absolute deadlines) and tries to reopen the sink with backoff
/// (0.25 s, 0.5 s, 1 s, … at most 5 s). When `open` succeeds it counts a recovery and writes
/// again. The engine's monitor thread turns the counts into route-change events.
///
/// Thread rules: `start` and `stop` from the control plane; the loop itself runs on its
/// own real-time thread and touches only the mixer and the sink (`open`, `write` and `close`
/// happen there, as `OutputSink` requires). The render thread takes no lock: it publishes
/// through atomics only. Its success path does not allocate; the failure path (a lost device)
/// may allocate (the reason's text) and sleep. Every other property may be read from any thread.
final class RenderLoop: @unchecked Sendable {
    /// A failure text on its way from the render thread to a reader.
    private final class Message {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The first and the longest wait between two attempts to reopen a lost device.
    static let firstBackoffNanoseconds: UInt64 = 250_000_000
    static let maximumBackoffNanoseconds: UInt64 = 5_000_000_000

    private let mixer: Mixer
    private let sink: any OutputSink
    private let running = Atomic<Bool>(false)
    /// Whether the device is gone right now (set by the render thread when a write fails,
    /// cleared when it reopens the sink).
    private let lost = Atomic<Bool>(false)
    /// Devices lost and recovered so far (loss n always comes before recovery n).
    let losses = Atomic<Int>(0)
    let recoveries = Atomic<Int>(0)
    /// Attempts to reopen since the last loss (for the recovery event's detail).
    let reopenAttempts = Atomic<Int>(0)
    /// The latest failure text (a retained `Message`) not yet taken by a reader. The render
    /// thread exchanges a new one in; readers exchange it out (and own it) under `failure`.
    private let outbox = Atomic<UnsafeMutableRawPointer?>(nil)
    /// The failure text last taken from `outbox`; readers only.
    private let failure = Mutex<String?>(nil)
    /// CPU time the render thread has used, in nanoseconds (updated every 64 cycles).
    let cpuNanoseconds = Atomic<UInt64>(0)
    private var thread: RealtimeThread?

    init(mixer: Mixer, sink: any OutputSink) {
        self.mixer = mixer
        self.sink = sink
    }

    deinit {
        if let p = outbox.exchange(nil, ordering: .acquiringAndReleasing) { Unmanaged<Message>.fromOpaque(p).release() }
    }

    /// Why the device stopped accepting audio, while it is gone; nil while it plays. Any thread but the render thread.
    var deviceError: String? {
        guard lost.load(ordering: .acquiring) else { return nil }
        return latestFailure ?? "the output device was lost"
    }

    /// Whether the device is gone right now (the loop is retrying it).
    var isDeviceLost: Bool { lost.load(ordering: .acquiring) }

    /// The text of the latest failure, even after the device came back. Any thread but the render thread.
    var latestFailure: String? {
        failure.withLock { text in
            if let p = outbox.exchange(nil, ordering: .acquiringAndReleasing) {
                text = Unmanaged<Message>.fromOpaque(p).takeRetainedValue().text
            }
            return text
        }
    }

    var isRunning: Bool { running.load(ordering: .acquiring) }

    func start() throws {
        guard thread == nil else { return }
        try sink.open()
        running.store(true, ordering: .releasing)
        thread = RealtimeThread(name: "tonearm-render") { [self] in run() }
    }

    func stop() {
        guard let thread else { return }
        running.store(false, ordering: .releasing)
        thread.join()
        self.thread = nil
        sink.close()
    }

    private func run() {
        let frames = mixer.periodFrames
        let rate = UInt64(mixer.format.sampleRate)
        // While the device is gone: when it was lost, frames rendered since, the next attempt to reopen.
        var lostAt: UInt64 = 0
        var framesSinceLoss: UInt64 = 0
        var backoff: UInt64 = 0
        var nextAttempt: UInt64 = 0
        var cycle = 0
        while running.load(ordering: .relaxed) {
            mixer.cycle(frames: frames, waitForData: nil)
            cycle &+= 1
            if cycle & 63 == 0 { publishCPUTime() }
            if lostAt == 0 {
                do {
                    try sink.write(mixer.buffer, frames: frames)
                    continue
                } catch {
                    deviceFailed(error)
                    lostAt = max(MonotonicClock.nanoseconds(), 1)
                    framesSinceLoss = 0
                    backoff = Self.firstBackoffNanoseconds
                    // Only a device that went away may come back. A sink that failed otherwise
                    // (a WAV file that cannot be written) is not reopened: that would restart its file.
                    let mayReturn = (error as? OutputError)?.kind == .deviceLost
                    nextAttempt = mayReturn ? lostAt + backoff : .max
                }
            }
            framesSinceLoss += UInt64(frames)
            MonotonicClock.sleep(until: lostAt + framesSinceLoss * 1_000_000_000 / rate)
            let now = MonotonicClock.nanoseconds()
            if now >= nextAttempt && running.load(ordering: .relaxed) {
                if reopen() {
                    lostAt = 0
                } else {
                    backoff = min(backoff * 2, Self.maximumBackoffNanoseconds)
                    nextAttempt = MonotonicClock.nanoseconds() + backoff
                }
            }
        }
    }

    /// Render thread, failure path: releases the device and publishes why.
    private func deviceFailed(_ error: any Error) {
        sink.close()
        let box = Unmanaged.passRetained(Message(String(describing: error))).toOpaque()
        if let stale = outbox.exchange(box, ordering: .acquiringAndReleasing) {
            Unmanaged<Message>.fromOpaque(stale).release()  // never taken: this thread owns it
        }
        reopenAttempts.store(0, ordering: .relaxed)
        lost.store(true, ordering: .releasing)
        losses.wrappingAdd(1, ordering: .releasing)
    }

    /// Render thread, failure path: one attempt to reopen the device; true when it is back.
    private func reopen() -> Bool {
        reopenAttempts.wrappingAdd(1, ordering: .relaxed)
        do {
            try sink.open()
        } catch {
            sink.close()
            return false
        }
        lost.store(false, ordering: .releasing)
        recoveries.wrappingAdd(1, ordering: .releasing)
        return true
    }

    private func publishCPUTime() {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        cpuNanoseconds.store(UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec), ordering: .relaxed)
    }
}
