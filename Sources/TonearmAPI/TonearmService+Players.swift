import AudioDecoding
import AudioEngine
import Foundation
import HTTPServer
import JSON

/// Creating, reading, changing and removing players (SPEC 3).
extension TonearmService {
    /// Whether `id` is a slug `[a-z0-9][a-z0-9_-]{0,63}`.
    static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        func allowed(_ b: UInt8, first: Bool) -> Bool {
            (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || (!first && (b == 0x5F || b == 0x2D))
        }
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.enumerated().allSatisfy { allowed($0.element, first: $0.offset == 0) }
    }

    static func validateID(_ id: String, field: String = "id") throws(APIError) {
        guard isValidID(id) else {
            throw .invalid("\(field): '\(id)' is not a valid player id (1–64 of a-z, 0-9, '_' and '-', starting with a letter or digit)")
        }
    }

    /// A server-chosen id that is not taken.
    func newID() -> String {
        let taken = Set(players.withLock { $0.map(\.id) })
        var n = taken.count + 1
        while taken.contains("player-\(n)") { n += 1 }
        return "player-\(n)"
    }

    /// Body policy for create routes: audio bytes stream to the state dir, JSON is buffered.
    var createBody: RequestBody {
        let temporary = store.temporaryDirectory
        let max = configuration.maxUpload
        return .perRequest { request in
            let type = request.contentType ?? ""
            return type.hasPrefix("audio/") || type == "application/octet-stream"
                ? .upload(directory: temporary, maxBytes: max) : .buffered()
        }
    }

    /// What a create request asks for: the id (maybe), the source, the initial settings.
    struct CreateRequest {
        var id: String?
        var source: PlayerSource
        var settings: PlayerSettings
    }

    /// Reads a create request: uploaded bytes (`?id=` optional) or JSON `{"url", "id"?, settings…}`.
    /// `pathID` is the id of a PUT. An upload is kept only once the player is created.
    func readCreate(_ request: HTTPRequest, pathID: String?) throws(APIError) -> CreateRequest {
        if let file = request.bodyFile {
            let id = pathID ?? request.queryValue("id")
            if let id { try Self.validateID(id) }
            guard request.bodyLength > 0 else { throw APIError.invalid("the upload is empty: send the audio file's bytes as the body") }
            return CreateRequest(id: id, source: .upload(path: file), settings: PlayerSettings())
        }
        var reader = try RequestJSON.object(request)
        let (id, url, settings) = try RequestJSON.validate { () throws(JSONFieldError) in
            let id = pathID == nil ? try reader.optionalString("id") : nil
            let url = try reader.field("url").string(nonEmpty: true)
            let settings = try PlayerSettings(reading: &reader)
            try reader.finish()
            return (id, url, settings)
        }
        let queryID = pathID == nil ? request.queryValue("id") : nil
        if let queryID { try Self.validateID(queryID) }
        if let id { try Self.validateID(id) }
        if let id, let queryID, id != queryID {
            throw APIError.invalid("id: the body says '\(id)' but the query says '\(queryID)'")
        }
        let resolved = try media.resolve(url)
        return CreateRequest(id: pathID ?? id ?? queryID, source: .file(path: resolved.path, url: resolved.url), settings: settings)
    }

    /// Opens the sound and adds the player, applying `settings`; an upload is moved into the
    /// state directory first. Throws 422 for a sound that cannot be decoded.
    func createPlayer(id: String, source: PlayerSource, settings: PlayerSettings, createdAt: Double = Date().timeIntervalSince1970,
                      persist: Bool = true, register: Bool = true) throws(APIError) -> ManagedPlayer {
        var source = source
        if case let .upload(temporary) = source, !temporary.hasPrefix(store.uploadsDirectory) {
            do { _ = try AudioDecoders.open(.file(temporary)) } catch {
                throw APIError.invalid("the uploaded bytes are not a sound Tonearm can play: \(error)")
            }
            do { source = .upload(path: try store.keepUpload(from: temporary, id: id)) } catch {
                throw APIError(507, "Insufficient storage", "could not store the upload in the state directory: \(error)")
            }
        }
        let player: Player
        do {
            player = try engine.makePlayer(id: id, input: .file(source.path), url: source.url)
        } catch let error as DecodeError {
            throw APIError.invalid("url: \(error.detail)")
        } catch {
            throw APIError.conflict("\(error)")
        }
        let managed = ManagedPlayer(player: player, source: source, createdAt: createdAt)
        do {
            try apply(settings, to: managed)
        } catch {
            player.remove()
            if case .upload = source { store.remove(id: id) }
            throw error
        }
        if register { players.withLock { $0.append(managed) } }
        if persist { self.persist(managed) }
        return managed
    }

    /// Validates every change first (all or nothing), then applies them in a safe order.
    func apply(_ s: PlayerSettings, to m: ManagedPlayer) throws(APIError) {
        try apply(s, to: m.player, managed: m)
    }

    /// `apply` for an engine player: the API player `managed` (its duck and session), or a node's player (nil).
    func apply(_ s: PlayerSettings, to p: Player, managed m: ManagedPlayer?) throws(APIError) {
        let prepared = ![PlayerState.idle, .stopped, .finished].contains(p.state)
        if let enable = s.enableRate, enable != p.enableRate, prepared {
            throw .conflict("enableRate: can only change before prepare — stop the player first (it is \(p.state.rawValue))")
        }
        if let rate = s.rate, rate != p.rate, !(s.enableRate ?? p.enableRate) {
            throw .conflict("rate: needs enableRate: true, set before prepare")
        }
        if let rate = s.rate, rate != p.rate, s.enableRate == true, !p.enableRate, prepared {
            throw .conflict("rate: enableRate must be set before prepare")
        }
        if case let .some(.some(assignments)) = s.channelAssignments {
            guard assignments.count == p.numberOfChannels else {
                throw .invalid("channelAssignments: needs one entry per sound channel (\(p.numberOfChannels)), got \(assignments.count)")
            }
            let channels = engine.format.channels
            if let bad = assignments.firstIndex(where: { $0 >= channels }) {
                throw .invalid("channelAssignments[\(bad)]: \(assignments[bad]) is not an output channel (the device has \(channels): 0…\(channels - 1))")
            }
        }
        if let t = s.currentTime, t > p.duration {
            throw .invalid("currentTime: \(t) is past the end of the sound (duration \(p.duration) s)")
        }
        if let enable = s.enableRate { p.enableRate = enable }
        if let rate = s.rate { p.rate = rate }
        if let volume = s.volume {
            if let m { setVolumeRespectingDuck(volume, of: m) } else { p.volume = volume }
        }
        if let pan = s.pan { p.pan = pan }
        if let loops = s.numberOfLoops { p.numberOfLoops = loops }
        if let metering = s.meteringEnabled { p.meteringEnabled = metering }
        if let assignments = s.channelAssignments { p.channelAssignments = assignments }
        if let t = s.currentTime { p.currentTime = t }
        m?.session.withLock { session in
            if let c = s.category { session.category = c }
            if let o = s.categoryOptions { session.options = o }
            if let r = s.resumeAfterInterruption { session.resumeAfterInterruption = r }
            if let d = s.duckDB { session.duckDB = d }
        }
    }

    // MARK: Handlers

    func listPlayers(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let list = players.withReadLock { $0 }
        return .json(["players": .array(list.map(PlayerJSON.player))])
    }

    func createPlayer(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let create = try readCreate(request, pathID: nil)
        let id = create.id ?? newID()
        if players.withLock({ $0.contains { $0.id == id } }) {
            throw .conflict("id: a player '\(id)' already exists (PUT /api/v1/players/\(id) replaces it)")
        }
        let m = try createPlayer(id: id, source: create.source, settings: create.settings)
        let body = PlayerJSON.player(m)
        feed.publish("player.created", body, playerID: id)
        return .json(body, status: 201, headers: ["Location": "/api/v1/players/\(id)"])
    }

    func putPlayer(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let id = request.parameter("id") ?? ""
        try Self.validateID(id)
        let create = try readCreate(request, pathID: id)
        if let existing = players.withLock({ $0.first { $0.id == id } }) {
            if case .file = create.source, existing.source == create.source {
                try apply(create.settings, to: existing)  // same sound: only the settings change
                return updated(existing)
            }
            // The new player is built first: if the request is bad, the old one stays.
            let m = try createPlayer(id: id, source: create.source, settings: create.settings, persist: false, register: false)
            players.withLock { list in
                if let i = list.firstIndex(where: { $0 === existing }) { list[i] = m } else { list.append(m) }
            }
            existing.player.remove()
            sessionRemoved(id)
            if case let .upload(old) = existing.source, old != m.source.path { unlink(old) }
            persist(m)
            feed.publish("player.deleted", ["id": .string(id)], playerID: id)
            let body = PlayerJSON.player(m)
            feed.publish("player.created", body, playerID: id)
            return .json(body, status: 201, headers: ["Location": "/api/v1/players/\(id)"])
        }
        let m = try createPlayer(id: id, source: create.source, settings: create.settings)
        let body = PlayerJSON.player(m)
        feed.publish("player.created", body, playerID: id)
        return .json(body, status: 201, headers: ["Location": "/api/v1/players/\(id)"])
    }

    func getPlayer(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        .json(PlayerJSON.player(try find(request.parameter("id") ?? "")))
    }

    func patchPlayer(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        var reader = try RequestJSON.object(request)
        let settings = try RequestJSON.validate { () throws(JSONFieldError) in
            let s = try PlayerSettings(reading: &reader)
            try reader.finish()
            return s
        }
        try apply(settings, to: m)
        return updated(m)
    }

    /// Saves a changed player, tells the event feed, and answers with the player.
    func updated(_ m: ManagedPlayer) -> HTTPResponse {
        persist(m)
        let body = PlayerJSON.player(m)
        feed.publish("player.updated", body, playerID: m.id)
        return .json(body)
    }

    func deletePlayer(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        removePlayer(m)
        feed.publish("player.deleted", ["id": .string(m.id)], playerID: m.id)
        return .empty(status: 204)
    }

    func removePlayer(_ m: ManagedPlayer) {
        players.withLock { $0.removeAll { $0 === m } }
        m.player.remove()
        store.remove(id: m.id)
        sessionRemoved(m.id)
    }
}
