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
        var reader = try RequestJSON.object(request, optional: true)
        let time = try readStartTime(&reader)
        try reader.finishOrThrow()
        try requireDevice()
        let result: PlayResult
        if let time {
            result = m.player.play(atTime: time)
        } else {
            let ok = m.player.play()
            result = PlayResult(ok: ok, startTime: m.player.startTime ?? (ok ? engine.deviceCurrentTime : nil), lateBy: 0)
        }
        guard result.ok else {
            throw .invalid("the sound could not be decoded: \(m.player.lastError ?? "decoding failed")")
        }
        sessionStarted([m])
        var body = PlayerJSON.player(m).objectValue ?? [:]
        body["startTime"] = result.startTime.map { .double($0) } ?? .null
        body["lateBy"] = .double(result.lateBy)
        return .json(.object(body))
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
        var reader = try RequestJSON.object(request)
        let (volume, duration) = try RequestJSON.validate { () throws(JSONFieldError) in
            let v = try reader.double("volume", in: 0...1)
            let d = try reader.double("duration", in: 0...3600)
            try reader.finish()
            return (v, d)
        }
        m.player.setVolume(volume, fadeDuration: duration)
        return updated(m)
    }

    func meters(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        guard m.player.meteringEnabled else {
            throw .conflict("metering is off for '\(m.id)': PATCH {\"meteringEnabled\": true} first")
        }
        return .json(["channels": PlayerJSON.meterChannels(m.player)])
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
