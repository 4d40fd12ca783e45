import AudioCore
import AudioDSP
import Foundation

/// The players of one source rate, mixed at that rate and resampled to the device rate once
/// (instead of once per player): the mixer renders their voices into `buffer` on the bus's
/// own timeline, then adds the resampled sum to the period.
///
/// Bus frame `b` plays at device frame (b − delay) × up / down (`PolyphaseResampler`): a
/// command for device frame `d` is applied at bus frame `busFrame(d)`. The bus renders the
/// filter's half-length (about 1 ms) ahead of the device, so a start asked for at least
/// that far ahead lands exactly; a nearer one starts late, aligned, like any late start.
///
/// Thread rules: built on the control plane; everything else on the render thread.
final class ResampleBus: @unchecked Sendable {
    let resampler: PolyphaseResampler
    let channels: Int
    /// 5 ms at the source rate.
    let smoothingFrames: Int
    /// Input frames (device channels) from `bufferStart` on; room for a cycle's worth plus the filter.
    let buffer: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var bufferStart: Int64 = 0
    /// Bus frames rendered so far (the next one to render). Frames before the one device
    /// frame 0 plays (`delay`) are the filter's silent pre-roll.
    private(set) var rendered: Int64

    init(resampler: PolyphaseResampler, channels: Int, periodFrames: Int) {
        self.resampler = resampler
        self.channels = channels
        smoothingFrames = max(1, resampler.inputRate / 200)
        rendered = resampler.delay
        capacity = ResampleBus.maximumFrames(resampler: resampler, periodFrames: periodFrames) + resampler.taps
        buffer = .allocate(capacity: capacity * channels)
        buffer.initialize(repeating: 0, count: capacity * channels)
        cycleInto = buffer
    }

    deinit { buffer.deallocate() }

    /// The most bus frames one cycle of `periodFrames` renders (what a voice's scratch must hold).
    static func maximumFrames(resampler: PolyphaseResampler, periodFrames: Int) -> Int {
        periodFrames * resampler.down / resampler.up + resampler.taps + 8
    }

    /// The bus frame that plays at device frame `frame`.
    func busFrame(_ frame: Int64) -> Int64 { resampler.inputFrame(forOutput: frame) }

    /// Bus frames for a duration of `frames` device frames.
    func busFrames(_ frames: Int) -> Int { Int((Int64(frames) * Int64(resampler.down) + Int64(resampler.up / 2)) / Int64(resampler.up)) }

    /// This cycle's frames for the voices (set by `prepare`): the bus frame they start at,
    /// how many, where in `buffer` they go, and how many of them the device plays only after
    /// the cycle's last frame (the filter's look-ahead).
    private(set) var cycleStart: Int64 = 0
    private(set) var cycleFrames = 0
    private(set) var cycleInto: UnsafeMutablePointer<Float>
    private(set) var cycleLead: Int64 = 0

    /// Sets up (and zeroes) the frames to render for device frames up to `end`.
    func prepare(outputEnd end: Int64) {
        let needed = resampler.inputEnd(forOutputEnd: end)
        cycleStart = rendered
        cycleFrames = max(0, Int(needed - rendered))
        cycleInto = buffer + Int(rendered - bufferStart) * channels
        cycleInto.update(repeating: 0, count: cycleFrames * channels)
        cycleLead = needed - busFrame(end)
    }

    /// After the voices rendered the cycle's frames: adds device frames `start ..< start + frames`
    /// to `out` and drops the input no later output needs.
    func resample(start: Int64, frames: Int, addingInto out: UnsafeMutablePointer<Float>) {
        rendered = resampler.inputEnd(forOutputEnd: start + Int64(frames))
        resampler.process(input: buffer, inputBase: bufferStart, start: start, frames: frames, addingInto: out, channels: channels)
        let keep = resampler.firstInput(forOutput: start + Int64(frames))
        let drop = Int(keep - bufferStart)
        if drop > 0 {
            let remaining = Int(rendered - keep)
            memmove(buffer, buffer + drop * channels, remaining * channels * MemoryLayout<Float>.size)
            bufferStart = keep
        }
    }

    /// The device timeline went back to 0: so does the bus, with silent history.
    func reset() {
        guard rendered != resampler.delay || bufferStart != 0 else { return }
        buffer.update(repeating: 0, count: capacity * channels)
        rendered = resampler.delay
        bufferStart = 0
    }
}
