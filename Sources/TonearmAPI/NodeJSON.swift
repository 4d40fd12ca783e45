import AudioEngine
import JSON

/// The JSON forms of player nodes and their scheduled items (issue 7). Any thread.
enum NodeJSON {
    /// The node's API id (its engine player's id without the `node:` prefix).
    static func apiID(_ node: PlayerNode) -> String { String(node.id.dropFirst("node:".count)) }

    /// The full node object: settings, state, player time and queue.
    static func node(_ node: PlayerNode) -> JSONValue {
        let v = node.player.snapshot()
        let rate = Double(node.sampleRate)
        let nodeTime = Int64((v.deviceCurrentTime * rate).rounded())
        let playerTime = node.playerTime(forNodeTime: nodeTime)
        return [
            "id": .string(apiID(node)),
            "channels": .int(Int64(node.channels)),
            "sampleRate": .int(Int64(node.sampleRate)),
            "state": .string(v.state.rawValue),
            "playing": .bool(v.isPlaying),
            "volume": .double(v.volume),
            "pan": .double(v.pan),
            "enableRate": .bool(v.enableRate),
            "rate": .double(v.rate),
            "meteringEnabled": .bool(v.meteringEnabled),
            "channelAssignments": v.channelAssignments.map { .array($0.map { .int(Int64($0)) }) } ?? .null,
            "nodeTime": ["sampleTime": .int(nodeTime), "seconds": .double(v.deviceCurrentTime)],
            "playerTime": playerTime.map { ["sampleTime": .int($0), "seconds": .double(Double($0) / rate)] } ?? .null,
            "startTime": v.startTime.map { .double($0) } ?? .null,
            "queue": .array(node.queue.map { item($0, rate: node.sampleRate) }),
        ]
    }

    /// One scheduled item.
    static func item(_ i: ScheduledItemInfo, rate: Int) -> JSONValue {
        [
            "id": .string(i.id), "kind": .string(i.kind), "status": .string(i.status),
            "startingFrame": .int(i.startingFrame), "frameCount": .int(i.frameCount),
            "sampleTime": .int(i.sampleTime), "length": .int(i.length),
            "endSampleTime": .int(i.sampleTime + i.length),
            "seconds": .double(Double(i.length) / Double(rate)),
            "callbackType": .string(i.callbackType.rawValue),
        ]
    }

    /// `node.state` data.
    static func state(_ node: PlayerNode) -> JSONValue {
        let v = node.player.snapshot()
        return ["id": .string(apiID(node)), "state": .string(v.state.rawValue), "playing": .bool(v.isPlaying),
                "deviceCurrentTime": .double(v.deviceCurrentTime)]
    }
}
