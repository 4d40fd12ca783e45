import AudioDSP

/// One step of a player's chain on the render thread. A stage sees the player's own
/// contribution for the cycle — after volume, pan and channel routing, in device channels,
/// interleaved — in place, before the voice adds it to the mix. Stages are plain stored
/// values (or preallocated objects) of `VoiceChain`, called with static dispatch: no
/// existentials, no allocation, no locks. An inactive stage costs nothing; when no stage is
/// active the voice mixes straight into the mix buffer.
///
/// Thread rules: render thread only (the control plane reaches a stage through commands
/// or atomics the stage owns).
protocol VoiceStage {
    /// Whether the stage has work this cycle.
    var isActive: Bool { get }
    /// Processes `frames` frames of `channels` channels in place.
    mutating func process(_ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int)
    /// The player contributed silence for `frames` frames (not playing, or starved).
    mutating func processSilence(frames: Int)
}

extension Meter: VoiceStage {
    var isActive: Bool { isEnabled }

    func process(_ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        process(UnsafePointer(samples), frames: frames)
    }
}
