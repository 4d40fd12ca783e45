/// Where each sound channel goes on the device: through the stereo panner to outputs 0
/// and 1 (mono or stereo sounds on a device with ≥ 2 channels), or channel by channel
/// with a gain (explicit channel assignments, more channels, or a mono device).
/// A plain value for up to 8 sound channels; any thread.
struct ChannelRouting: BitwiseCopyable, Equatable {
    static let maximumChannels = 8
    static let dropped: UInt8 = 0xFF

    /// True: use the panner matrix; false: use `targets` and `scale`.
    var panned: Bool
    /// Output channel per sound channel (or `dropped`), packed one byte per channel.
    var targets: UInt64
    /// Gain applied to every routed channel in direct mode (0.5 when downmixing stereo to mono).
    var scale: Float

    func target(_ soundChannel: Int) -> Int {
        Int((targets >> (UInt64(soundChannel) * 8)) & 0xFF)
    }

    /// The default routing of SPEC 2.1, or the explicit `assignments`.
    static func make(soundChannels: Int, deviceChannels: Int, assignments: [Int]?) -> ChannelRouting {
        var targets: UInt64 = ~0
        func set(_ c: Int, _ out: Int) {
            targets &= ~(0xFF << (UInt64(c) * 8))
            targets |= UInt64(out & 0xFF) << (UInt64(c) * 8)
        }
        if let assignments {
            for (c, out) in assignments.prefix(maximumChannels).enumerated() where out < deviceChannels { set(c, out) }
            return ChannelRouting(panned: false, targets: targets, scale: 1)
        }
        if deviceChannels >= 2 && soundChannels <= 2 {
            return ChannelRouting(panned: true, targets: targets, scale: 1)
        }
        if deviceChannels == 1 {
            for c in 0..<min(soundChannels, maximumChannels) { set(c, 0) }
            return ChannelRouting(panned: false, targets: targets, scale: 1 / Float(max(soundChannels, 1)))
        }
        for c in 0..<min(soundChannels, maximumChannels) where c < deviceChannels { set(c, c) }
        return ChannelRouting(panned: false, targets: targets, scale: 1)
    }
}
