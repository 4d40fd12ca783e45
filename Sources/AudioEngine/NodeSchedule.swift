import AudioDecoding
import Foundation

/// A player node's timeline (AVAudioPlayerNode's player time) as an endless sound in the
/// node's format: silence where nothing is scheduled, the sum of the scheduled items where
/// they play. The node's engine player reads it like any decoder, so the node gets the
/// player's whole chain (ring, rate, volume, pan, routing, metering, fades) unchanged.
///
/// Items start at an explicit sample time or right after the previously scheduled item.
/// An item whose start the reader has already passed starts late, aligned: its first
/// frames are skipped so the rest plays on time.
///
/// Thread rules: `read` and `seek` run on the node's decode worker; everything else on the
/// control plane (the monitor takes completions). All of it serializes on one lock that a
/// `read` holds for one block of audio.
final class NodeSchedule: AudioDecoder, @unchecked Sendable {
    let settings: SoundSettings
    /// Endless: the timeline never ends on its own (2^52 frames).
    let frameCount: Int64 = 1 << 52
    let metadata = SoundMetadata()
    let channels: Int
    let sampleRate: Int
    private let lock = NSLock()
    /// Items not fully read yet, by start (stable for equal starts).
    private var items: [ScheduledItem] = []
    /// The next timeline frame `read` produces.
    private var position: Int64 = 0
    /// Where the previously scheduled item ends (an item at `nil` starts here or later).
    private var tail: Int64 = 0
    /// The previously scheduled item while it is not fully read (a continuation may join it).
    private var tailItem: ScheduledItem?
    /// Items read to the end since the monitor last looked, behind their own lock so the
    /// monitor never waits for a `read` in progress.
    private var consumed: [NodeCompletion] = []
    private let consumedLock = NSLock()
    private var itemNumber = 0

    init(channels: Int, sampleRate: Int) {
        self.channels = channels
        self.sampleRate = sampleRate
        settings = SoundSettings(formatID: "node", sampleRate: sampleRate, numberOfChannels: channels, bitRate: 0, bitDepth: 32,
                                 channelLayout: channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")
    }

    // MARK: Control plane

    /// Adds an item. `at` is a sample time on the node's timeline, or nil for right after the
    /// previously scheduled item (as soon as possible when that one has already played).
    /// The caller has validated the segment against the sound.
    func schedule(_ source: ScheduledSource, startingFrame: Int64, frameCount: Int64, at: Int64?,
                  callbackType: CompletionCallbackType, id: String?) -> ScheduledItemInfo {
        lock.lock()
        defer { lock.unlock() }
        itemNumber += 1
        let sourceRate = ScheduledItem.rate(of: source) ?? sampleRate
        let start = at ?? max(tail, position)
        // A segment that continues the previous one of the same sound keeps its stream, and its
        // length is cut from their common start so the pair is exactly as long as one segment.
        var chainStart = startingFrame
        var continued: ScheduledItem? = nil
        if let previous = tailItem, let key = previous.key, case let .sound(_, k) = source, k == key,
           previous.sourceEnd == startingFrame, previous.sourceRate == sourceRate, start == previous.end {
            continued = previous
            chainStart = previous.chainStart
        }
        let length = scaled(startingFrame + frameCount - chainStart, sourceRate) - scaled(startingFrame - chainStart, sourceRate)
        let item = ScheduledItem(id: id ?? "item-\(itemNumber)", source: source, startingFrame: startingFrame, frameCount: frameCount,
                                 start: start, length: length, callbackType: callbackType)
        item.chainStart = chainStart
        if let continued {
            if let stream = continued.stream {
                if !stream.drained && stream.sourceLimit == continued.sourceEnd {
                    stream.sourceLimit = item.sourceEnd
                    item.continues = continued
                }
            } else {
                item.continues = continued
            }
        }
        let index = items.firstIndex { $0.start > start } ?? items.count
        items.insert(item, at: index)
        tail = item.end
        tailItem = item
        return item.info(status: "scheduled")
    }

    /// Source frames → node frames, rounded.
    private func scaled(_ frames: Int64, _ sourceRate: Int) -> Int64 {
        sourceRate == sampleRate ? frames : (frames * Int64(sampleRate) + Int64(sourceRate / 2)) / Int64(sourceRate)
    }

    /// Removes every item (stop): returns the ones not fully read, for their cancelled reports.
    /// The timeline's "previous item" is forgotten too.
    func removeAll() -> [ScheduledItem] {
        lock.lock()
        defer { lock.unlock() }
        let removed = items
        items.removeAll()
        tail = 0
        tailItem = nil
        consumedLock.lock()
        consumed.removeAll()
        consumedLock.unlock()
        for item in removed { item.stream = nil }
        return removed
    }

    /// Monitor: items read to the end since the last call.
    func takeConsumed() -> [NodeCompletion] {
        consumedLock.lock()
        defer { consumedLock.unlock() }
        defer { consumed.removeAll() }
        return consumed
    }

    /// Items not fully read yet.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count
    }

    /// The items not fully read yet, in start order.
    var queue: [ScheduledItemInfo] {
        lock.lock()
        defer { lock.unlock() }
        return items.map { $0.info(status: $0.stream == nil ? "scheduled" : "playing") }
    }

    /// Worker: whether nothing is scheduled in the next `frames` frames of the timeline
    /// (the producer then stays just ahead of the mixer, so items added now are not late).
    func isSilent(ahead frames: Int64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return !items.contains { $0.start < position + frames }
    }

    // MARK: Decode worker (AudioDecoder)

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        buffer.update(repeating: 0, count: frames * channels)
        let a = position, b = position + Int64(frames)
        var i = 0
        while i < items.count {
            let item = items[i]
            if item.start >= b { break }
            let from = max(a, item.start), to = min(b, item.end)
            if from < to {
                if item.stream == nil { open(item, at: from) }
                item.stream?.produce(adding: buffer + Int(from - a) * channels, frames: Int(to - from))
            }
            if item.end <= b {
                complete(item)
                items.remove(at: i)
            } else {
                i += 1
            }
        }
        position = b
        return frames
    }

    func seek(toFrame frame: Int64) throws {
        lock.lock()
        defer { lock.unlock() }
        position = max(0, frame)
        for item in items { item.stream = nil }
    }

    /// Opens `item`'s stream for timeline frame `frame` (after its start when it starts late),
    /// reading up to the end of the chain of segments that continue it.
    private func open(_ item: ScheduledItem, at frame: Int64) {
        item.continues = nil
        let skip = frame - item.start
        let rate = item.sourceRate ?? sampleRate
        let skipSource = rate == sampleRate ? skip : (skip * Int64(rate) + Int64(sampleRate / 2)) / Int64(sampleRate)
        var limit = item.sourceEnd
        var last = item
        for next in items where next.continues === last {
            limit = next.sourceEnd
            last = next
        }
        item.stream = ItemStream(source: item.source, sourcePosition: item.startingFrame + min(skipSource, item.frameCount),
                                 sourceLimit: limit, outChannels: channels, nodeRate: sampleRate)
    }

    /// `item` has been read to its end: hands its stream to the segment that continues it and
    /// records the completion for the monitor.
    private func complete(_ item: ScheduledItem) {
        if let next = items.first(where: { $0.continues === item }) {
            if let stream = item.stream, !stream.drained, next.stream == nil {
                next.stream = stream
            } else {
                next.continues = nil
            }
        }
        item.stream = nil
        if tailItem === item { tailItem = nil }
        consumedLock.lock()
        consumed.append(NodeCompletion(item: item.id, callbackType: item.callbackType, end: item.end))
        consumedLock.unlock()
    }
}
