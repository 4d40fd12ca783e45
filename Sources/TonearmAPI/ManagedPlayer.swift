import AudioEngine
import Synchronization

/// A player the API manages: the engine's `Player` plus where its sound came from.
/// Any thread (the engine player serializes on the engine's lock).
final class ManagedPlayer: Sendable {
    let player: Player
    let source: PlayerSource
    let createdAt: Double

    init(player: Player, source: PlayerSource, createdAt: Double) {
        self.player = player
        self.source = source
        self.createdAt = createdAt
    }

    var id: String { player.id }

    /// The settable properties as they are now (what persistence stores).
    var settings: PlayerSettings {
        var s = PlayerSettings()
        s.volume = player.volume
        s.pan = player.pan
        s.enableRate = player.enableRate
        s.rate = player.rate
        s.numberOfLoops = player.numberOfLoops
        s.currentTime = player.currentTime
        s.meteringEnabled = player.meteringEnabled
        s.channelAssignments = .some(player.channelAssignments)
        return s
    }
}
