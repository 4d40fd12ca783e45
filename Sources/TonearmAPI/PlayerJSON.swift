import AudioDecoding
import AudioEngine
import JSON

/// The JSON forms of players and their events (SPEC 2.2 and 4). Any thread.
enum PlayerJSON {
    /// The full player object.
    static func player(_ m: ManagedPlayer) -> JSONValue {
        let p = m.player
        let s = p.settings
        var settings: JSONObject = [
            "formatID": .string(s.formatID), "sampleRate": .int(Int64(s.sampleRate)),
            "numberOfChannels": .int(Int64(s.numberOfChannels)), "bitRate": .int(Int64(s.bitRate)),
        ]
        if let depth = s.bitDepth { settings["bitDepth"] = .int(Int64(depth)) }
        settings["channelLayout"] = .string(s.channelLayout)
        var metadata = JSONObject()
        if let t = p.metadata.title { metadata["title"] = .string(t) }
        if let a = p.metadata.artist { metadata["artist"] = .string(a) }
        if let a = p.metadata.album { metadata["album"] = .string(a) }
        if p.metadata.artwork != nil { metadata["artworkURL"] = .string("/api/v1/players/\(p.id)/artwork") }
        let v = p.snapshot()
        let state = v.state
        let session = m.session.withReadLock { $0 }
        var o: JSONObject = [
            "id": .string(p.id),
            "url": m.source.url.map { .string($0) } ?? .null,
            "hasData": .bool(m.source.url == nil),
            "playing": .bool(state == .playing || state == .scheduled),
            "state": .string(state.rawValue),
            "volume": .double(v.volume),
            "pan": .double(v.pan),
            "enableRate": .bool(v.enableRate),
            "rate": .double(v.rate),
            "numberOfLoops": .int(Int64(v.numberOfLoops)),
            "meteringEnabled": .bool(v.meteringEnabled),
            "currentTime": .double(v.currentTime),
            "duration": .double(p.duration),
            "numberOfChannels": .int(Int64(p.numberOfChannels)),
            "channelAssignments": v.channelAssignments.map { .array($0.map { .int(Int64($0)) }) } ?? .null,
            "settings": .object(settings),
            "deviceCurrentTime": .double(v.deviceCurrentTime),
            "startTime": v.startTime.map { .double($0) } ?? .null,
            "metadata": .object(metadata),
        ]
        o["category"] = .string(session.category.rawValue)
        o["categoryOptions"] = .array(session.options.map { .string($0.rawValue) })
        o["resumeAfterInterruption"] = .bool(session.resumeAfterInterruption)
        o["duckDB"] = .double(session.duckDB)
        return .object(o)
    }

    /// `player.state` data.
    static func state(_ p: Player) -> JSONValue {
        let v = p.snapshot()
        return [
            "id": .string(p.id), "state": .string(v.state.rawValue), "playing": .bool(v.isPlaying),
            "currentTime": .double(v.currentTime), "deviceCurrentTime": .double(v.deviceCurrentTime),
        ]
    }

    /// `player.progress` data.
    static func progress(_ p: Player, _ v: PlayerSnapshot) -> JSONValue {
        ["id": .string(p.id), "currentTime": .double(v.currentTime), "duration": .double(p.duration),
         "deviceCurrentTime": .double(v.deviceCurrentTime)]
    }

    /// The meter channels array: `[{averagePower, peakPower}, …]`.
    static func meterChannels(_ p: Player) -> JSONValue {
        .array(p.meterReadings.map { reading -> JSONValue in
            ["averagePower": .double(reading.averagePower), "peakPower": .double(reading.peakPower)]
        })
    }
}
