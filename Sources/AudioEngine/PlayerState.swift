/// A player's transport state (SPEC 2.2).
package enum PlayerState: String, Sendable, CaseIterable {
    case idle, prepared, scheduled, playing, paused, stopped, finished
}

/// What the engine tells the outside world; delivered on the engine's monitor thread.
package enum EngineEvent: Sendable, Equatable {
    case stateChanged(playerID: String, state: PlayerState)
    case finished(playerID: String, successfully: Bool)
    case decodeError(playerID: String, message: String)
    /// The output device went away or came back (AVAudioSession's route change):
    /// `reason` is `oldDeviceUnavailable` (`detail`: why) or `newDeviceAvailable`
    /// (`detail`: the device, `kind:name`).
    case routeChange(reason: String, detail: String)
    /// A node's scheduled item reached the moment its callback type names (or was
    /// unscheduled by stop: `cancelled`). `sampleTime` is the item's end on the node's
    /// timeline; `deviceTime` is when that moment came on the device clock.
    case nodeCompleted(nodeID: String, item: String, callbackType: CompletionCallbackType, sampleTime: Int64, deviceTime: Double,
                       cancelled: Bool)
}

/// What the engine does with playing players when its output device goes away.
package enum DeviceLossPolicy: String, Sendable, CaseIterable {
    /// Pause every playing or scheduled player (iOS on a headphone unplug); they stay paused
    /// when the device comes back, until played.
    case pause
    /// Keep the players running on the device timeline (their audio goes nowhere until the
    /// device is back).
    case `continue`
}

/// The outcome of `play`: whether it started, the device time it starts at, and how late
/// the request arrived for it (seconds; the player still aligns to `startTime`).
package struct PlayResult: Sendable, Equatable {
    package var ok: Bool
    package var startTime: Double?
    package var lateBy: Double

    package init(ok: Bool, startTime: Double?, lateBy: Double) {
        self.ok = ok
        self.startTime = startTime
        self.lateBy = lateBy
    }
}
