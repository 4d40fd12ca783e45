import AudioEngine
import Foundation
import HTTPServer
import JSON

/// prepare, play, pause, stop, fade, meters, artwork and the synchronized start (SPEC 3).
extension TonearmService {
    /// Reads `{"atTime": T}` or `{"delay": s}` (or neither) → the device time to start at, if any.
    func readStartTime(_ reader: inout JSONObjectReader) throws(APIError) -> Double? {
        let (atTime, delay) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.optionalDouble("atTime"), try reader.optionalDouble("delay"))
        }
        if atTime != nil && delay != nil { throw .invalid("atTime and delay: give one or the other, not both") }
        if let atTime {
            guard atTime >= 0, atTime <= Engine.maximumDeviceTime else {
                throw .invalid("atTime: must be a device time between 0 and \(Int(Engine.maximumDeviceTime)) seconds, got \(atTime)")
            }
            return atTime
        }
        if let delay {
            guard delay >= 0, delay <= 86_400 else { throw .invalid("delay: must be between 0 and 86400 seconds, got \(delay)") }
            return engine.deviceCurrentTime + delay
        }
        return nil
    }

    func requireDevice() throws(APIError) {
        if let error = engine.deviceError { throw .unavailable("the output device failed: \(error)") }
    }

    func prepare(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        try RequestJSON.object(request, optional: true).finishOrThrow()
        try requireDevice()
        return .json(["ok": .bool(m.player.prepare())])
    }

    func play(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        let result = try startPlaying(m.player, request)
        guard result.ok else {
            throw .invalid("the sound could not be decoded: \(m.player.lastError ?? "decoding failed")")
        }
        sessionStarted([m])
        return .json(Self.adding(result, to: PlayerJSON.player(m)))
    }

    /// The play request of a player or node: `{"atTime"}`, `{"delay"}` or now (for a device
    /// that works). The caller says what a failed start means.
    func startPlaying(_ p: Player, _ request: HTTPRequest) throws(APIError) -> PlayResult {
        var reader = try RequestJSON.object(request, optional: true)
        let time = try readStartTime(&reader)
        try reader.finishOrThrow()
        try requireDevice()
        if let time { return p.play(atTime: time) }
        let ok = p.play()
        return PlayResult(ok: ok, startTime: p.startTime ?? (ok ? engine.deviceCurrentTime : nil), lateBy: 0)
    }

    /// `object` with the start's `startTime` and `lateBy`.
    static func adding(_ result: PlayResult, to object: JSONValue) -> JSONValue {
        var body = object.objectValue ?? [:]
        body["startTime"] = result.startTime.map { .double($0) } ?? .null
        body["lateBy"] = .double(result.lateBy)
        return .object(body)
    }

    func pause(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        try halt(request) { $0.pause() }
    }

    func stop(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        try halt(request) { $0.stop() }
    }

    /// pause and stop: the user halts the player (its position is saved, what it interrupted resumes).
    private func halt(_ request: HTTPRequest, _ action: (Player) -> Void) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        try RequestJSON.object(request, optional: true).finishOrThrow()
        action(m.player)
        persist(m)
        sessionUserStopped(m)
        return .json(PlayerJSON.player(m))
    }

    func fade(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        try fade(m.player, request)
        return updated(m)
    }

    /// `{"volume", "duration"}`: a fade of a player or node.
    func fade(_ p: Player, _ request: HTTPRequest) throws(APIError) {
        var reader = try RequestJSON.object(request)
        let (volume, duration) = try RequestJSON.validate { () throws(JSONFieldError) in
            let v = try reader.double("volume", in: 0...1)
            let d = try reader.double("duration", in: 0...3600)
            try reader.finish()
            return (v, d)
        }
        p.setVolume(volume, fadeDuration: duration)
    }

    func meters(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        return try meters(m.player, named: "'\(m.id)'")
    }

    /// The meter readings of a player or node (`name` as the error should call it); 409 with metering off.
    func meters(_ p: Player, named name: String) throws(APIError) -> HTTPResponse {
        guard p.meteringEnabled else {
            throw .conflict("metering is off for \(name): PATCH {\"meteringEnabled\": true} first")
        }
        return .json(["channels": PlayerJSON.meterChannels(p)])
    }

    func artwork(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        guard let art = m.player.metadata.artwork else { throw .notFound("'\(m.id)' has no embedded picture") }
        return HTTPResponse(status: 200, headers: ["Content-Type": art.mimeType, "Cache-Control": "max-age=3600"], body: art.bytes)
    }

    /// POST /api/v1/play: all the players start on the same device frame, or none starts.
    func playTogether(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var reader = try RequestJSON.object(request)
        let (ids, nodeIDs) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try (reader.optionalElements("players") ?? []).map { (f: JSONField) throws(JSONFieldError) in try f.string() },
             try (reader.optionalElements("nodes") ?? []).map { (f: JSONField) throws(JSONFieldError) in try f.string() })
        }
        let time = try readStartTime(&reader)
        try reader.finishOrThrow()
        guard !ids.isEmpty || !nodeIDs.isEmpty else { throw .invalid("players: name at least one player (or node, in nodes)") }
        for (field, list) in [("players", ids), ("nodes", nodeIDs)] {
            if let dup = list.first(where: { id in list.filter { $0 == id }.count > 1 }) {
                throw .invalid("\(field): '\(dup)' is listed twice")
            }
        }
        var chosen: [ManagedPlayer] = []
        for id in ids { chosen.append(try find(id)) }
        var chosenNodes: [PlayerNode] = []
        for id in nodeIDs { chosenNodes.append(try findNode(id)) }
        try requireDevice()
        // Without a time, start a little ahead so every player is prepared in time.
        let startTime = time ?? engine.deviceCurrentTime + 0.1
        let result = engine.play(chosen.map(\.player) + chosenNodes.map(\.player), atTime: startTime)
        guard result.ok else { throw .invalid("players: one of the sounds could not be decoded, so none started") }
        sessionStarted(chosen)
        return .json(["startTime": .double(startTime), "lateBy": .double(result.lateBy),
                      "players": .array(chosen.map(PlayerJSON.player)), "nodes": .array(chosenNodes.map(NodeJSON.node))])
    }
}

extension JSONObjectReader {
    /// `finish()` with the error as a 422 problem.
    func finishOrThrow() throws(APIError) {
        do { try finish() } catch { throw APIError.invalid(error) }
    }
}
