import AudioDecoding

/// When a scheduled item's completion is reported (AVAudioPlayerNodeCompletionCallbackType).
package enum CompletionCallbackType: String, Sendable, CaseIterable {
    /// The decoder is done with the item: its last frame has been read.
    case dataConsumed
    /// Its last frame has been mixed by the render thread.
    case dataRendered
    /// Its last frame has reached the output (rendered, plus the output latency).
    case dataPlayedBack
}

/// The audio of a scheduled item: a sound opened by a decoder (`key` names the sound, so
/// consecutive segments of the same one can share a stream), or float32 PCM interleaved
/// in the node's format.
package enum ScheduledSource: @unchecked Sendable {
    case sound(any AudioDecoder, key: String)
    case buffer([Float])
}

/// What a client sees of a scheduled item. A plain value; any thread.
package struct ScheduledItemInfo: Sendable, Equatable {
    package var id: String
    /// `file` or `buffer`.
    package var kind: String
    /// First source frame and source frames of the segment (at the sound's own rate).
    package var startingFrame: Int64
    package var frameCount: Int64
    /// Where the item starts on the node's timeline and how long it plays there (node frames).
    package var sampleTime: Int64
    package var length: Int64
    package var callbackType: CompletionCallbackType
    /// `scheduled` (not reached yet) or `playing` (being read); an item read to its end
    /// leaves the queue.
    package var status: String
}

/// One item on a node's timeline. Thread rules: created on the control plane; its mutable
/// fields change under the schedule's lock only.
final class ScheduledItem {
    let id: String
    let source: ScheduledSource
    let startingFrame: Int64
    let frameCount: Int64
    /// Start and length on the node's timeline (node frames).
    let start: Int64
    let length: Int64
    let callbackType: CompletionCallbackType
    /// The item this one continues seamlessly (same sound, next frames, right after it).
    var continues: ScheduledItem?
    /// The first source frame of the run of continuing segments this one belongs to.
    var chainStart: Int64 = 0
    /// The open stream while the item is being read.
    var stream: ItemStream?

    init(id: String, source: ScheduledSource, startingFrame: Int64, frameCount: Int64, start: Int64, length: Int64,
         callbackType: CompletionCallbackType) {
        self.id = id
        self.source = source
        self.startingFrame = startingFrame
        self.frameCount = frameCount
        self.start = start
        self.length = length
        self.callbackType = callbackType
    }

    var end: Int64 { start + length }
    var sourceEnd: Int64 { startingFrame + frameCount }

    var key: String? {
        if case let .sound(_, key) = source { return key }
        return nil
    }

    /// The sound's rate (nil for a buffer: the node's rate).
    var sourceRate: Int? { Self.rate(of: source) }

    static func rate(of source: ScheduledSource) -> Int? {
        if case let .sound(decoder, _) = source { return decoder.settings.sampleRate }
        return nil
    }

    func info(status: String) -> ScheduledItemInfo {
        let kind: String = if case .buffer = source { "buffer" } else { "file" }
        return ScheduledItemInfo(id: id, kind: kind, startingFrame: startingFrame, frameCount: frameCount, sampleTime: start,
                                 length: length, callbackType: callbackType, status: status)
    }
}

/// A finished item on its way to its completion report (monitor thread, under the engine's lock).
struct NodeCompletion: Sendable, Equatable {
    var item: String
    var callbackType: CompletionCallbackType
    /// The item's end on the node's timeline.
    var end: Int64
    /// The device frame after its last frame was mixed (known once rendered).
    var renderedFrame: Int64 = 0
    /// Device frame at which its last frame reaches the output.
    var playedBackFrame: Int64 = 0
}
