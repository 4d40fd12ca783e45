import AudioCore
import AudioEngine
import Synchronization

/// A player the API manages: the engine's `Player` plus where its sound came from.
/// Any thread (the engine player serializes on the engine's lock).
final class ManagedPlayer: Sendable {
    let player: Player
    let source: PlayerSource
    let createdAt: Double
    /// Category, options and interruption behaviour (SessionSettings).
    let session = ReadWriteLock(SessionSettings())
    /// The volume to restore while another player ducks this one (nil: not ducked).
    let duckedFrom = Mutex<Double?>(nil)

    /// False for temporary players (announcements): they are never written to the state dir.
    let persistent: Bool

    init(player: Player, source: PlayerSource, createdAt: Double, persistent: Bool = true) {
        self.player = player
        self.source = source
        self.createdAt = createdAt
        self.persistent = persistent
    }

    var id: String { player.id }

    /// The settable properties as they are now (what persistence stores).
    var settings: PlayerSettings {
        let v = player.snapshot()
        var s = PlayerSettings()
        s.volume = duckedFrom.withLock { $0 } ?? v.volume
        s.pan = v.pan
        s.enableRate = v.enableRate
        s.rate = v.rate
        s.numberOfLoops = v.numberOfLoops
        s.currentTime = v.currentTime
        s.meteringEnabled = v.meteringEnabled
        s.channelAssignments = .some(v.channelAssignments)
        let session = self.session.withReadLock { $0 }
        s.category = session.category
        s.categoryOptions = session.options
        s.resumeAfterInterruption = session.resumeAfterInterruption
        s.duckDB = session.duckDB
        return s
    }
}
