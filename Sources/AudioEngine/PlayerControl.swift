import AudioDSP

/// The control plane's record of one player, kept in the engine's lock.
struct PlayerControl {
    let id: String
    let voice: Voice
    let producer: Producer
    let soundChannels: Int
    let sourceRate: Double
    /// The timeline a player node reads (nil for a plain player).
    let schedule: NodeSchedule?
    /// A node's finished items waiting to be mixed, or to reach the output.
    var awaitingRender: [NodeCompletion] = []
    var awaitingPlayback: [NodeCompletion] = []
    var state: PlayerState = .idle
    var prepared = false
    var generation: UInt32 = 0
    var volume: Double = 1
    var pan: Double = 0
    var channelAssignments: [Int]? = nil
    /// AVAudioPlayer's enableRate: takes effect at the next prepare.
    var enableRate = false
    var rate: Double = 1
    /// The time-stretcher runs: `enableRate` was true at the last prepare.
    var stretching = false
    var meteringEnabled = false
    /// The command number of the last fade (a volume ramp with a duration) that may still run.
    var fadeCommand: Int? = nil
    var startTime: Double? = nil
    /// A seek the render thread has not applied yet: (target in source frames, command number).
    var pendingSeek: (frames: Double, command: Int)? = nil
    var seenFinished: UInt32 = 0
    var seenFailed: UInt32 = 0
    var seenStarted: UInt32 = 0
}

/// Everything the control plane changes, behind the engine's one Mutex.
struct ControlState {
    var players: [Int32: PlayerControl] = [:]
    var freeSlots: [Int32]
    /// Commands pushed so far (compared with `Mixer.appliedCommands`).
    var sentCommands = 0
    var events: [EngineEvent] = []
    /// Resample buses by source rate (bus index and its resampler).
    var buses: [Int: (index: Int, resampler: PolyphaseResampler)] = [:]

    init(maximumPlayers: Int) {
        freeSlots = (0..<Int32(maximumPlayers)).reversed()
    }
}
