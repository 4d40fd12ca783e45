import AudioCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The render thread of a real-time engine: mixes a period, writes it to the sink, repeats;
/// the sink's blocking write paces the loop. If the device fails, the loop keeps the
/// timeline running on the monotonic clock and records why.
///
/// Thread rules: `start` and `stop` from the control plane; the loop itself runs on its
/// own real-time thread and touches only the mixer and the sink.
final class RenderLoop: @unchecked Sendable {
    private let mixer: Mixer
    private let sink: any OutputSink
    private let running = Atomic<Bool>(false)
    private let failure = Mutex<String?>(nil)
    /// Whether `failure` is set: read without the lock on every health check.
    private let failed = Atomic<Bool>(false)
    /// CPU time the render thread has used, in nanoseconds (updated every 64 cycles).
    let cpuNanoseconds = Atomic<UInt64>(0)
    private var thread: RealtimeThread?

    init(mixer: Mixer, sink: any OutputSink) {
        self.mixer = mixer
        self.sink = sink
    }

    /// Why the device stopped accepting audio, if it did.
    var deviceError: String? { failed.load(ordering: .acquiring) ? failure.withLock { $0 } : nil }
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
        var failedAt: UInt64 = 0
        var framesSinceFailure: UInt64 = 0
        var cycle = 0
        while running.load(ordering: .relaxed) {
            mixer.cycle(frames: frames, waitForData: nil)
            cycle &+= 1
            if cycle & 63 == 0 { publishCPUTime() }
            if failedAt == 0 {
                do {
                    try sink.write(mixer.buffer, frames: frames)
                    continue
                } catch {
                    failure.withLock { $0 = String(describing: error) }
                    failed.store(true, ordering: .releasing)
                    failedAt = MonotonicClock.nanoseconds()
                }
            }
            framesSinceFailure += UInt64(frames)
            MonotonicClock.sleep(until: failedAt + framesSinceFailure * 1_000_000_000 / rate)
        }
    }

    private func publishCPUTime() {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        cpuNanoseconds.store(UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec), ordering: .relaxed)
    }
}
