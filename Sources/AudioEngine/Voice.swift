import AudioCore
import AudioDSP
import Synchronization

/// The mixer's side of one player: its block ring, its gain, pan and routing state, its
/// stage chain (metering), and the values it publishes for the control plane.
///
/// Thread rules: fields marked "render" are touched only by the render thread (after the
/// voice is attached). Atomics are written by the render thread and read by anyone.
/// The voice is created on the control plane; the render thread holds it through an
/// unmanaged pointer between `attach` and `detach`.
final class Voice: @unchecked Sendable {
    enum Mode: UInt8 { case idle, scheduled, waiting, playing, paused }

    let ring: BlockRing
    let soundChannels: Int
    /// The resample bus the voice plays through (its frames are the bus's, at the sound's
    /// rate), or −1: it plays at the device rate.
    let bus: Int
    /// For a bused voice, how bus frames map to device frames (see `ResampleBus`).
    private let busMapping: (up: Int64, down: Int64, delay: Int64)?
    /// Frames in one pass of the sound (source rate), for wrapping positions across loops.
    let sourceLength: Double

    // render
    var mode: Mode = .idle
    var generation: UInt32 = 0
    /// Device frame at which stream frame 0 of the current generation plays.
    var origin: Int64 = 0
    /// Device frame requested for a scheduled start.
    var startFrame: Int64 = 0
    /// Next stream frame to play.
    var streamPosition: Int64 = 0
    var block: Int32 = -1
    var blockOffset = 0
    var gain = GainRamp(1)
    /// Frames at the end of the current cycle's mix that the device plays only later (set by
    /// the mixer for a bused voice: the bus runs ahead by its filter), so `position` is the
    /// device's.
    var positionLead: Int64 = 0
    /// The pending scheduled ramp (`EngineCommand.gainAt`): the device frame it starts at
    /// (-1: none), its target and length in frames.
    var pendingGainFrame: Int64 = -1
    var pendingGainTarget: Float = 1
    var pendingGainFrames = 0
    var matrix = StereoPanner(ll: 1, rl: 0, lr: 0, rr: 1)
    var matrixTarget = StereoPanner(ll: 1, rl: 0, lr: 0, rr: 1)
    var matrixRemaining = 0
    var routing: ChannelRouting
    /// Stages after gain, pan and routing (see `VoiceChain`).
    var chain: VoiceChain
    /// The chain's meter, for the control plane's reads (`Meter.reading`).
    let meter: Meter
    /// The player's contribution for one cycle when a stage is active (device channels).
    let scratch: UnsafeMutablePointer<Float>
    let scratchFrames: Int

    // published by the render thread
    /// The position in the sound (source frames, Double bits) and the device frame it plays
    /// at, published together (see `publishPosition` and `anchor`).
    private let anchorSequence = Atomic<UInt64>(0)
    private let anchorPosition = Atomic<UInt64>(0)
    private let anchorFrame = Atomic<Int64>(0)
    /// Counts natural ends, decode failures and scheduled starts reached (the monitor diffs them).
    let finishedCount = Atomic<UInt32>(0)
    let failedCount = Atomic<UInt32>(0)
    let startedCount = Atomic<UInt32>(0)
    /// CLOCK_MONOTONIC (ns) of the cycle that rendered the latest start's first frame.
    let startedAtNanoseconds = Atomic<UInt64>(0)
    /// Cycles in which the voice had no audio ready while playing.
    let starvedCycles = Atomic<Int>(0)
    /// The gain of the next frame (Float bits, low 32 bits) and whether a ramp is running
    /// (bit 32), as of the last cycle or gain command.
    let publishedGain = Atomic<UInt64>(UInt64(Float(1).bitPattern))

    /// `deviceChannels`, `maximumFrames` (a period) and `sampleRate` size the stage chain.
    init(ring: BlockRing, soundChannels: Int, sourceLength: Double, routing: ChannelRouting,
         deviceChannels: Int, maximumFrames: Int, sampleRate: Int, bus: (index: Int, resampler: PolyphaseResampler)? = nil) {
        self.ring = ring
        self.bus = bus?.index ?? -1
        busMapping = bus.map { (Int64($0.resampler.up), Int64($0.resampler.down), $0.resampler.delay) }
        self.soundChannels = soundChannels
        self.sourceLength = sourceLength
        self.routing = routing
        meter = Meter(channels: deviceChannels, sampleRate: sampleRate)
        chain = VoiceChain(meter: meter)
        scratchFrames = maximumFrames
        scratch = .allocate(capacity: maximumFrames * deviceChannels)
        scratch.initialize(repeating: 0, count: maximumFrames * deviceChannels)
    }

    deinit { scratch.deallocate() }

    /// Any thread: the position in the sound, in source frames.
    var positionFrames: Double { Double(bitPattern: anchorPosition.load(ordering: .acquiring)) }

    /// Render thread: publishes the position, and that it plays at frame `frame` (the bus's
    /// for a bused voice, published as a device frame; `.min`: not known until it plays). A
    /// sequence lock: a reader never sees one without the other, the writer never waits.
    func publishPosition(_ position: Double, frame: Int64) {
        var frame = frame
        if let m = busMapping, frame != .min { frame = (frame - m.delay) * m.up / m.down }
        let sequence = anchorSequence.load(ordering: .relaxed)
        anchorSequence.store(sequence &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        anchorPosition.store(position.bitPattern, ordering: .relaxed)
        anchorFrame.store(frame, ordering: .relaxed)
        anchorSequence.store(sequence &+ 2, ordering: .releasing)
    }

    /// Any thread: the latest (source position, device frame) pair the mixer played, or
    /// nil before the voice has played anything since its last flush.
    var anchor: (position: Double, frame: Int64)? {
        while true {
            let before = anchorSequence.load(ordering: .acquiring)
            if before == 0 { return nil }
            if before & 1 != 0 { continue }
            let position = Double(bitPattern: anchorPosition.load(ordering: .relaxed))
            let frame = anchorFrame.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            if anchorSequence.load(ordering: .relaxed) == before { return frame == .min ? nil : (position, frame) }
        }
    }

    /// Any thread: the current gain and whether it is ramping (a fade or smoothing).
    var currentGain: (value: Float, ramping: Bool) {
        let bits = publishedGain.load(ordering: .acquiring)
        return (Float(bitPattern: UInt32(bits & 0xFFFF_FFFF)), bits >> 32 != 0)
    }
}
