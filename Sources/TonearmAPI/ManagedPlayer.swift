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

    init(player: Player, source: PlayerSource, createdAt: Double) {
        self.player = player
        self.source = source
        self.createdAt = createdAt
    }

    var id: String { player.id }

    /// The settable properties as they are now (what persistence stores).
    var settings: PlayerSettings {
        var s = PlayerSettings()
        s.volume = duckedFrom.withLock { $0 } ?? player.volume
        s.pan = player.pan
        s.enableRate = player.enableRate
        s.rate = player.rate
        s.numberOfLoops = player.numberOfLoops
        s.currentTime = player.currentTime
        s.meteringEnabled = player.meteringEnabled
        s.channelAssignments = .some(player.channelAssignments)
        let session = self.session.withReadLock { $0 }
        s.category = session.category
        s.categoryOptions = session.options
        s.resumeAfterInterruption = session.resumeAfterInterruption
        s.duckDB = session.duckDB
        return s
    }
}
