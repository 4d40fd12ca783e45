import AudioDSP

/// A player's render-side stages, in order, after gain, pan and routing (see `VoiceStage`).
/// Today: the meter. A new stage (an equaliser, loudness normalisation) is a stored property
/// here, one line in `isActive`, `process` and `processSilence`, and a command for its
/// parameters — the mixer does not change.
///
/// Thread rules: render thread only; built on the control plane before the voice is attached.
struct VoiceChain {
    /// Meters the player's output (SPEC 2.2); off by default.
    let meter: Meter

    init(meter: Meter) {
        self.meter = meter
    }

    var isActive: Bool { meter.isActive }

    mutating func process(_ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        if meter.isActive { meter.process(samples, frames: frames, channels: channels) }
    }

    mutating func processSilence(frames: Int) {
        if meter.isActive { meter.processSilence(frames: frames) }
    }
}
