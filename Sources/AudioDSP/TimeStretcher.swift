import CSoundTouch

/// Pitch-preserving tempo change (WSOLA) of interleaved Float32 audio over SoundTouch's C
/// API, with exact position bookkeeping: it knows which input frame every output frame
/// stands for, across tempo changes, and ends the stream on exactly the frame that
/// corresponds to the last input frame.
///
/// The mapping from output to input is piecewise linear: slope `tempo`, with a corner at
/// the first output frame SoundTouch produces after each `setTempo` (the frames it had
/// already produced keep the old tempo; the input it still buffers is processed at the new
/// one). Output frame 0 after `reset` stands for input frame 0. WSOLA picks each ~50 ms
/// sequence from a ±`seekWindow` neighbourhood, so the audio at an output frame comes from
/// within a few milliseconds of the mapped input position; the mapping itself never drifts.
///
/// Only the tempo changes; SoundTouch's rate transposer stays at 1 (no pitch change), so
/// its anti-alias filter is switched off. Settings are tuned for music (see `init`).
///
/// Not thread-safe: used by one thread at a time (a player's decode worker), hence
/// `@unchecked Sendable` so it can move between workers. It allocates as SoundTouch's
/// buffers grow: never use it on the render thread.
package final class TimeStretcher: @unchecked Sendable {
    /// The tempo range the engine accepts (SPEC 2.2 `rate`).
    package static let tempoRange: ClosedRange<Double> = 0.5...2.0
    /// SoundTouch's own channel limit.
    package static let maximumChannels = 16

    package let channels: Int
    package let sampleRate: Int
    /// Output frames per input frame is 1 / tempo.
    package private(set) var tempo: Double

    private let handle: UnsafeMutableRawPointer
    /// Input frames put in and output frames taken out since the last reset.
    package private(set) var inputFrames: Int64 = 0
    package private(set) var outputFrames: Int64 = 0
    /// Corners of the output → input mapping, oldest first; the first one is at or before `outputFrames`.
    private var segments: [Segment] = [Segment(output: 0, input: 0, tempo: 1)]
    /// After `finish`: the total number of output frames the stream has.
    private var endFrame: Int64? = nil
    private let zeros: UnsafeMutablePointer<Float>
    private static let zeroFrames = 256

    private struct Segment {
        var output: Double
        var input: Double
        var tempo: Double
    }

    // SoundTouch.h's SETTING_* identifiers (the C header does not carry them).
    private static let settingUseAAFilter: Int32 = 0
    private static let settingUseQuickSeek: Int32 = 2
    private static let settingSequenceMs: Int32 = 3
    private static let settingSeekWindowMs: Int32 = 4
    private static let settingOverlapMs: Int32 = 5

    /// A stretcher for `channels` channels at `sampleRate` Hz, starting at `tempo`.
    ///
    /// Music settings: sequence and seek window lengths are left on SoundTouch's automatic
    /// choice (0), which scales them with the tempo (sequence ~125 ms at 0.5× down to ~50 ms
    /// at 2×, seek window ~25 → 15 ms) — long sequences keep tonal music smooth when slowed
    /// and short ones keep transients tight when sped up; 8 ms overlap; the full
    /// (not "quick") best-overlap search. Throws `SoundTouchError`.
    package init(channels: Int, sampleRate: Int, tempo: Double = 1) throws(SoundTouchError) {
        guard (1...TimeStretcher.maximumChannels).contains(channels) else {
            throw SoundTouchError(message: "\(channels) channels: SoundTouch handles 1…\(TimeStretcher.maximumChannels)",
                                  operation: "soundtouch_setChannels \(channels)")
        }
        guard sampleRate > 0 else {
            throw SoundTouchError(message: "the sample rate must be positive", operation: "soundtouch_setSampleRate \(sampleRate)")
        }
        guard TimeStretcher.tempoRange.contains(tempo) else {
            throw SoundTouchError(message: "tempo \(tempo) is outside \(TimeStretcher.tempoRange)", operation: "soundtouch_setTempo")
        }
        guard let h = soundtouch_createInstance() else {
            throw SoundTouchError(message: "no instance returned", operation: "soundtouch_createInstance")
        }
        handle = h
        self.channels = channels
        self.sampleRate = sampleRate
        self.tempo = tempo
        zeros = .allocate(capacity: TimeStretcher.zeroFrames * channels)
        zeros.initialize(repeating: 0, count: TimeStretcher.zeroFrames * channels)
        guard soundtouch_setChannels(h, UInt32(channels)) != 0 else {
            throw SoundTouchError(message: "channel count refused", operation: "soundtouch_setChannels \(channels)")
        }
        guard soundtouch_setSampleRate(h, UInt32(sampleRate)) != 0 else {
            throw SoundTouchError(message: "sample rate refused", operation: "soundtouch_setSampleRate \(sampleRate)")
        }
        let settings: [(Int32, Int32, String)] = [
            (TimeStretcher.settingUseAAFilter, 0, "USE_AA_FILTER"),
            (TimeStretcher.settingUseQuickSeek, 0, "USE_QUICKSEEK"),
            (TimeStretcher.settingSequenceMs, 0, "SEQUENCE_MS"),
            (TimeStretcher.settingSeekWindowMs, 0, "SEEKWINDOW_MS"),
            (TimeStretcher.settingOverlapMs, 8, "OVERLAP_MS"),
        ]
        for (id, value, name) in settings where soundtouch_setSetting(h, id, value) == 0 {
            throw SoundTouchError(message: "setting refused", operation: "soundtouch_setSetting SETTING_\(name) = \(value)")
        }
        soundtouch_setTempo(h, Float(tempo))
        segments[0].tempo = tempo
    }

    deinit {
        soundtouch_destroyInstance(handle)
        zeros.deallocate()
    }

    /// Changes the tempo (clamped to `tempoRange`) from the next frame SoundTouch produces.
    /// Smooth: SoundTouch keeps overlap-adding, so there is no click and no gap.
    package func setTempo(_ newTempo: Double) {
        let t = min(TimeStretcher.tempoRange.upperBound, max(TimeStretcher.tempoRange.lowerBound, newTempo))
        guard t != tempo, endFrame == nil else { return }
        let corner = Double(outputFrames + availableFrames)
        let input = inputPosition(ofOutputFrame: corner)
        if segments[segments.count - 1].output == corner {
            segments[segments.count - 1].tempo = t
        } else {
            segments.append(Segment(output: corner, input: input, tempo: t))
        }
        tempo = t
        soundtouch_setTempo(handle, Float(t))
    }

    /// Processed frames ready to receive.
    package var availableFrames: Int64 { Int64(soundtouch_numSamples(handle)) }

    /// Input frames SoundTouch holds that it has not processed yet.
    package var unprocessedFrames: Int64 { Int64(soundtouch_numUnprocessedSamples(handle)) }

    /// Feeds `frames` interleaved frames. Not after `finish` (until `reset`).
    package func put(_ samples: UnsafePointer<Float>, frames: Int) {
        guard frames > 0, endFrame == nil else { return }
        _ = soundtouch_putSamples(handle, samples, UInt32(frames))
        inputFrames += Int64(frames)
    }

    /// Takes up to `maximumFrames` processed frames into `output`; returns how many.
    /// After `finish`, stops exactly at the stream's end (0 from then on).
    package func receive(into output: UnsafeMutablePointer<Float>, maximumFrames: Int) -> Int {
        var wanted = maximumFrames
        if let endFrame { wanted = min(wanted, Int(endFrame - outputFrames)) }
        guard wanted > 0 else { return 0 }
        let n = Int(soundtouch_receiveSamples(handle, output, UInt32(wanted)))
        outputFrames += Int64(n)
        while segments.count > 1 && segments[1].output <= Double(outputFrames) { segments.removeFirst() }
        return n
    }

    /// The input ended: pushes SoundTouch's buffered input through and fixes the stream's
    /// length to the output frame that stands for the end of the input.
    package func finish() {
        guard endFrame == nil else { return }
        let end = Int64(outputPosition(ofInputFrame: Double(inputFrames)).rounded())
        // Feed silence until SoundTouch has produced every frame up to the end (bounded, in
        // case the library holds back more than expected).
        var guardFrames = Int64(sampleRate) * 4
        while outputFrames + availableFrames < end && guardFrames > 0 {
            _ = soundtouch_putSamples(handle, zeros, UInt32(TimeStretcher.zeroFrames))
            guardFrames -= Int64(TimeStretcher.zeroFrames)
        }
        endFrame = end
    }

    /// True after `finish` once every frame of the stream was received.
    package var isFinished: Bool { endFrame.map { outputFrames >= $0 } ?? false }

    /// Forgets all input and output (after a seek); the next input frame is input frame 0.
    package func reset() {
        soundtouch_clear(handle)
        inputFrames = 0
        outputFrames = 0
        endFrame = nil
        segments = [Segment(output: 0, input: 0, tempo: tempo)]
    }

    /// The input frame (fractional) that output frame `frame` stands for. Frames already
    /// received and pruned map with the oldest kept segment's line.
    package func inputPosition(ofOutputFrame frame: Double) -> Double {
        var i = segments.count - 1
        while i > 0 && segments[i].output > frame { i -= 1 }
        let s = segments[i]
        return s.input + (frame - s.output) * s.tempo
    }

    /// The output frame (fractional) that stands for input frame `frame`.
    package func outputPosition(ofInputFrame frame: Double) -> Double {
        var i = segments.count - 1
        while i > 0 && segments[i].input > frame { i -= 1 }
        let s = segments[i]
        return s.output + (frame - s.input) / s.tempo
    }

    /// The tempo at output frame `frame`: input frames advanced per output frame there.
    package func tempo(atOutputFrame frame: Double) -> Double {
        var i = segments.count - 1
        while i > 0 && segments[i].output > frame { i -= 1 }
        return segments[i].tempo
    }

    /// The first corner of the mapping after output frame `frame`, if any (blocks that must
    /// carry one tempo end there).
    package func nextCorner(afterOutputFrame frame: Int64) -> Int64? {
        for s in segments where s.output > Double(frame) { return Int64(s.output.rounded(.up)) }
        return nil
    }
}
