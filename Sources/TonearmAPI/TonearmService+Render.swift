import AudioCore
import AudioDecoding
import AudioEngine
import AudioOutput
import Foundation
import HTTPServer
import JSON

/// POST /api/v1/render: AVAudioEngine's manual rendering over HTTP. The request describes
/// nodes (with their schedules) and players (with their settings); a private offline engine
/// in the device's format renders them as fast as the decoders go, with the same code, the
/// same period and the same order as real-time playback, so the result is sample for
/// sample what `--output wav` writes for the same schedule.
extension TonearmService {
    func render(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var reader = try RequestJSON.object(request)
        let (duration, formatName, nodeFields, playerFields) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.double("duration", in: 0...configuration.maxRenderSeconds), try reader.optionalString("format") ?? "wav",
             try reader.optionalElements("nodes") ?? [], try reader.optionalElements("players") ?? [])
        }
        try reader.finishOrThrow()
        guard let format = RenderFileWriter.Format(rawValue: formatName) else {
            throw .invalid("format: must be wav or flac, got '\(formatName)'")
        }
        let frames = Int((duration * Double(engine.format.sampleRate)).rounded())
        guard frames > 0 else { throw .invalid("duration: \(duration) s is less than one frame") }
        let count = nodeFields.count + playerFields.count
        guard count > 0 else { throw .invalid("nodes and players: give at least one node or player to render") }
        guard count <= engine.maximumPlayers else { throw .invalid("nodes and players: at most \(engine.maximumPlayers) in all, got \(count)") }

        let offline = Engine(offlineFormat: engine.format, periodFrames: engine.periodFrames, maximumPlayers: count)
        defer { offline.shutdown() }
        var starts: [(Double, Player)] = []
        for (i, field) in nodeFields.enumerated() {
            starts.append(try renderNode(field, index: i, on: offline))
        }
        for (i, field) in playerFields.enumerated() {
            starts.append(try renderPlayer(field, index: i, on: offline))
        }
        // Everything starts before the first frame is rendered, in the order given (the mix order).
        for time in Set(starts.map(\.0)).sorted() {
            let group = starts.filter { $0.0 == time }.map(\.1)
            guard offline.play(group, atTime: time).ok else {
                throw .invalid("one of the sounds could not be decoded at its start: \(group.compactMap(\.lastError).first ?? "decoding failed")")
            }
        }
        let path = "\(store.temporaryDirectory)/render-\(UUID().uuidString).\(format.rawValue)"
        do {
            let writer = try RenderFileWriter(path: path, format: format, sampleRate: engine.format.sampleRate, channels: engine.format.channels)
            let chunk = engine.periodFrames * max(1, 16_384 / engine.periodFrames)
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * engine.format.channels)
            defer { buffer.deallocate() }
            var done = 0
            while done < frames {
                let n = min(chunk, frames - done)
                offline.render(frames: n, into: buffer)
                try writer.append(buffer, frames: n)
                done += n
            }
            try writer.close()
        } catch {
            unlink(path)
            throw APIError(507, "Insufficient storage", "could not write the render to the state directory: \(error)")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": format.mimeType,
                                                   "Content-Disposition": "attachment; filename=\"render.\(format.rawValue)\""],
                            body: .temporaryFile(path: path))
    }

    /// `{"id"?, "channels"?, settings…, "atTime"?, "schedule": [items]}` → a node on `offline`.
    private func renderNode(_ field: JSONField, index: Int, on offline: Engine) throws(APIError) -> (Double, Player) {
        let at = "nodes[\(index)]"
        var reader = try RequestJSON.validate { () throws(JSONFieldError) in try field.object() }
        let (id, channels, time, items) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.optionalString("id") ?? "node-\(index + 1)", try reader.optionalInt("channels", in: 1...8) ?? 2,
             try reader.optionalDouble("atTime", in: 0...Engine.maximumDeviceTime) ?? 0, try reader.optionalElements("schedule") ?? [])
        }
        let settings = try prefixed(at) { () throws(APIError) in try Self.readNodeSettings(&reader) }
        try reader.finishOrThrow()
        let node = try prefixed(at) { () throws(APIError) in try makeNode(id: id, channels: channels, settings: settings, on: offline) }
        for (k, item) in items.enumerated() {
            try prefixed("\(at).schedule[\(k)]") { () throws(APIError) in
                var itemReader = try RequestJSON.validate { () throws(JSONFieldError) in try item.object() }
                let spec = try ScheduleSpec(reading: &itemReader)
                try itemReader.finishOrThrow()
                _ = try schedule(spec, on: node)
            }
        }
        return (time, node.player)
    }

    /// `{"url", settings…, "atTime"?}` → a player on `offline`.
    private func renderPlayer(_ field: JSONField, index: Int, on offline: Engine) throws(APIError) -> (Double, Player) {
        let at = "players[\(index)]"
        var reader = try RequestJSON.validate { () throws(JSONFieldError) in try field.object() }
        let (url, time, settings) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.field("url").string(nonEmpty: true), try reader.optionalDouble("atTime", in: 0...Engine.maximumDeviceTime) ?? 0,
             try PlayerSettings(reading: &reader))
        }
        try reader.finishOrThrow()
        return try prefixed(at) { () throws(APIError) in
            let resolved = try media.resolve(url)
            let player: Player
            do { player = try offline.makePlayer(id: "\(at)", input: .file(resolved.path), url: resolved.url) } catch {
                throw .invalid("url: \(error)")
            }
            try apply(settings, to: player, managed: nil)  // checks currentTime against the duration too
            return (time, player)
        }
    }

    /// Runs `body`, naming `path` in front of the detail of an error it throws (unless the
    /// detail names it already, as errors from parsing the item's JSON do).
    private func prefixed<T>(_ path: String, _ body: () throws(APIError) -> T) throws(APIError) -> T {
        do { return try body() } catch {
            guard !error.detail.contains(path) else { throw error }
            var e = error
            e.detail = "\(path).\(error.detail)"
            throw e
        }
    }
}
