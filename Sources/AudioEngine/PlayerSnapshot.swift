/// A player's readable properties at one instant (see `Player.snapshot()`). A plain value; any thread.
package struct PlayerSnapshot: Sendable, Equatable {
    package var state: PlayerState
    package var volume: Double
    package var pan: Double
    package var enableRate: Bool
    package var rate: Double
    package var numberOfLoops: Int
    package var meteringEnabled: Bool
    package var currentTime: Double
    package var channelAssignments: [Int]?
    package var startTime: Double?
    package var deviceCurrentTime: Double

    package var isPlaying: Bool { state == .playing || state == .scheduled }
}
