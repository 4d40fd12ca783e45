/// A player's transport state (SPEC 2.2).
package enum PlayerState: String, Sendable, CaseIterable {
    case idle, prepared, scheduled, playing, paused, stopped, finished
}

/// What the engine tells the outside world; delivered on the engine's monitor thread.
package enum EngineEvent: Sendable, Equatable {
    case stateChanged(playerID: String, state: PlayerState)
    case finished(playerID: String, successfully: Bool)
    case decodeError(playerID: String, message: String)
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
