import AudioDecoding
import Foundation

/// A player node with AVAudioPlayerNode's model: sound segments and PCM buffers scheduled on
/// the node's own timeline (player time, in frames at the device rate), played by an engine
/// `Player` whose sound is that timeline. Volume, pan, rate, metering, fades and channel
/// assignments are the player's (`player`), so nodes and players share one DSP chain.
///
/// Thread rules: any control-plane thread (serializes on the engine's lock and the
/// schedule's lock).
package final class PlayerNode: Sendable {
    /// The node's transport and DSP chain; its `currentTime` is the player time in seconds.
    package let player: Player
    let schedule: NodeSchedule

    init(player: Player, schedule: NodeSchedule) {
        self.player = player
        self.schedule = schedule
    }

    package var id: String { player.id }
    package var channels: Int { schedule.channels }
    package var sampleRate: Int { schedule.sampleRate }

    /// Schedules frames `startingFrame ..< startingFrame + frameCount` of a sound (nil count:
    /// to its end) at sample time `at` of the node's timeline, or right after the previously
    /// scheduled item when `at` is nil. `key` names the sound (the same key lets consecutive
    /// segments share a stream). Throws `ScheduleError` for a segment outside the sound.
    package func scheduleSegment(_ decoder: any AudioDecoder, key: String, startingFrame: Int64, frameCount: Int64?,
                                 at sampleTime: Int64?, callbackType: CompletionCallbackType, id: String?) throws(ScheduleError) -> ScheduledItemInfo {
        let length = decoder.frameCount
        guard startingFrame >= 0 else { throw .invalid("startingFrame: \(startingFrame) is negative") }
        guard startingFrame < length else {
            throw .invalid("startingFrame: \(startingFrame) is at or past the end of the sound (\(length) frames)")
        }
        let count = frameCount ?? (length - startingFrame)
        guard count > 0 else { throw .invalid("frameCount: \(count) must be at least 1") }
        guard count <= length - startingFrame else {
            throw .invalid("frameCount: \(count) frames from \(startingFrame) run past the end of the sound (\(length) frames)")
        }
        try checkTime(sampleTime)
        return schedule.schedule(.sound(decoder, key: key), startingFrame: startingFrame, frameCount: count, at: sampleTime,
                                 callbackType: callbackType, id: id)
    }

    /// Schedules float32 PCM, interleaved in the node's channel count at the device rate.
    package func scheduleBuffer(_ samples: [Float], at sampleTime: Int64?, callbackType: CompletionCallbackType,
                                id: String?) throws(ScheduleError) -> ScheduledItemInfo {
        guard !samples.isEmpty, samples.count % channels == 0 else {
            throw .invalid("the buffer holds \(samples.count) samples, not a whole number of \(channels)-channel frames (at least one)")
        }
        try checkTime(sampleTime)
        let frames = Int64(samples.count / channels)
        return schedule.schedule(.buffer(samples), startingFrame: 0, frameCount: frames, at: sampleTime, callbackType: callbackType, id: id)
    }

    /// Items a node holds at most (each may keep a decoder open).
    package static let maximumQueue = 1024

    private func checkTime(_ sampleTime: Int64?) throws(ScheduleError) {
        guard schedule.count < Self.maximumQueue else {
            throw .invalid("the node already has \(Self.maximumQueue) items scheduled; schedule more as these play")
        }
        guard let sampleTime else { return }
        guard sampleTime >= 0, sampleTime <= Int64(Engine.maximumDeviceTime) * Int64(sampleRate) else {
            throw .invalid("at.sampleTime: \(sampleTime) is not a sample time on the node's timeline (0 or more)")
        }
    }

    /// Unschedules everything (pending items are reported as cancelled), stops, and resets
    /// the timeline to 0: the next play starts there.
    package func stop() {
        player.stop()
        player.engine.control.withLock { state in player.engine.cancelSchedule(slot: player.slot, in: &state) }
        player.currentTime = 0
    }

    /// The items not fully read yet, in start order.
    package var queue: [ScheduledItemInfo] { schedule.queue }

    /// The player time (node timeline frame) playing at device frame `nodeTime`; nil unless playing.
    package func playerTime(forNodeTime nodeTime: Int64) -> Int64? {
        guard let a = player.timelineAnchor() else { return nil }
        return Int64((a.position + Double(nodeTime - a.frame) * a.step).rounded())
    }

    /// The device frame at which player time `playerTime` plays; nil unless playing.
    package func nodeTime(forPlayerTime playerTime: Int64) -> Int64? {
        guard let a = player.timelineAnchor() else { return nil }
        return a.frame + Int64(((Double(playerTime) - a.position) / a.step).rounded())
    }
}

/// A schedule request the node cannot take; the text names the field and why.
package enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    package var description: String {
        switch self {
        case let .invalid(why): why
        }
    }
}
