import AudioDecoding
import AudioEngine
import Foundation
import HTTPServer
import JSON
import Synchronization

/// How an announcement treats what is playing.
enum AnnouncementMode: String, Sendable, CaseIterable {
    /// Category playback + duckOthers: the others are lowered by `duckDB` from its first sample.
    case duck
    /// Category playback: the players that do not mix pause and resume after it.
    case interrupt
    /// Category ambient + mixWithOthers: plays over everything, changes nothing.
    case mix

    var session: (SessionSettings.Category, [SessionSettings.Option]) {
        switch self {
        case .duck: (.playback, [.duckOthers])
        case .interrupt: (.playback, [])
        case .mix: (.ambient, [.mixWithOthers])
        }
    }
}

/// The announcements of one service: a FIFO of one-off players (`announce-N`, not
/// persisted). The head plays; the next starts when it finishes (or is stopped or deleted).
///
/// Threads: request handlers enqueue; `sessionEnded`/`sessionRemoved` (on `sessionQueue` or
/// a request thread) advance it. The state is under `state`'s lock; starting, removing and
/// events happen outside it.
final class AnnouncementQueue: Sendable {
    struct Item: Sendable {
        let managed: ManagedPlayer
        /// The uploaded bytes in the state dir's tmp, deleted with the announcement.
        let upload: String?
    }

    struct State: Sendable {
        var counter = 0
        /// The announcement playing (or scheduled) now.
        var current: Item?
        var waiting: [Item] = []
    }

    let state = Mutex(State())

    /// Seconds between the request and the announcement's first sample on the device clock,
    /// so the duck of the others is scheduled before it (the ramp lands on the first sample).
    static let leadSeconds = 0.1
    static let idPrefix = "announce-"
}

/// POST /api/v1/announce (issue 6, item 2).
extension TonearmService {
    /// What an announce request asks for.
    private struct AnnounceRequest {
        var source: PlayerSource
        var upload: String?
        var volume = 1.0
        var mode = AnnouncementMode.duck
        var duckDB = -15.0
    }

    private static func readMode(_ text: String, field: String) throws(APIError) -> AnnouncementMode {
        guard let mode = AnnouncementMode(rawValue: text) else {
            throw .invalid("\(field): must be one of \(AnnouncementMode.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return mode
    }

    private static func check(volume: Double, duckDB: Double) throws(APIError) {
        guard volume.isFinite, (0...1).contains(volume) else { throw .invalid("volume: must be between 0 and 1, got \(volume)") }
        guard duckDB.isFinite, SessionSettings.duckRange.contains(duckDB) else {
            throw .invalid("duckDB: must be between -96 and 0 dB, got \(duckDB)")
        }
    }

    /// Reads uploaded bytes or JSON `{url, volume?, mode?, duckDB?}`; the options may also be
    /// given in the query (`?volume=&mode=&duckDB=`, for uploads), a JSON body's values win.
    private func readAnnounce(_ request: HTTPRequest) throws(APIError) -> AnnounceRequest {
        func number(_ name: String) throws(APIError) -> Double? {
            guard let text = request.queryValue(name) else { return nil }
            guard let v = Double(text), v.isFinite else { throw .invalid("\(name): '\(text)' is not a number") }
            return v
        }
        var volume = try number("volume")
        var duckDB = try number("duckDB")
        var mode = try request.queryValue("mode").map { (m: String) throws(APIError) in try Self.readMode(m, field: "mode") }
        if let volume, !(0...1).contains(volume) { throw .invalid("volume: must be between 0 and 1, got \(volume)") }
        if let duckDB, !SessionSettings.duckRange.contains(duckDB) { throw .invalid("duckDB: must be between -96 and 0 dB, got \(duckDB)") }
        var a: AnnounceRequest
        if let file = request.bodyFile {
            guard request.bodyLength > 0 else { throw APIError.invalid("the upload is empty: send the audio file's bytes as the body") }
            a = AnnounceRequest(source: .upload(path: file), upload: file)
        } else {
            var reader = try RequestJSON.object(request)
            let (url, bodyVolume, bodyMode, bodyDuckDB) = try RequestJSON.validate { () throws(JSONFieldError) in
                let url = try reader.field("url").string(nonEmpty: true)
                let volume = try reader.optionalDouble("volume")
                let mode = try reader.optionalString("mode")
                let duckDB = try reader.optionalDouble("duckDB")
                try reader.finish()
                return (url, volume, mode, duckDB)
            }
            if let bodyVolume { volume = bodyVolume }
            if let bodyDuckDB { duckDB = bodyDuckDB }
            if let bodyMode { mode = try Self.readMode(bodyMode, field: "mode") }
            try Self.check(volume: volume ?? 1, duckDB: duckDB ?? -15)
            let resolved = try media.resolve(url)
            a = AnnounceRequest(source: .file(path: resolved.path, url: resolved.url), upload: nil)
        }
        if let volume { a.volume = volume }
        if let duckDB { a.duckDB = duckDB }
        if let mode { a.mode = mode }
        return a
    }

    /// POST /api/v1/announce: queues a one-off sound over whatever plays; 202 {id, position, startTime}.
    func announce(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var a = try readAnnounce(request)
        try requireDevice()
        let queue = announcements
        let taken = Set(players.withLock { $0.map(\.id) })
        let id = queue.state.withLock { s -> String in
            repeat { s.counter += 1 } while taken.contains(AnnouncementQueue.idPrefix + "\(s.counter)")
            return AnnouncementQueue.idPrefix + "\(s.counter)"
        }
        if let upload = a.upload {
            // The server deletes the request's file after the handler: keep it under our own name.
            let kept = store.temporaryDirectory + "/\(id).audio"
            guard rename(upload, kept) == 0 else {
                throw APIError(507, "Insufficient storage", "could not keep the upload in the state directory (errno \(errno))")
            }
            a.upload = kept
            a.source = .upload(path: kept)
        }
        let player: Player
        do {
            player = try engine.makePlayer(id: id, input: .file(a.source.path), url: a.source.url)
        } catch {
            if let upload = a.upload { unlink(upload) }
            if a.upload != nil { throw .invalid("the uploaded bytes are not a sound Tonearm can play: \(error)") }
            if let error = error as? DecodeError { throw .invalid("url: \(error.detail)") }
            throw .conflict("\(error)")
        }
        let m = ManagedPlayer(player: player, source: a.source, createdAt: Date().timeIntervalSince1970, persistent: false)
        player.volume = a.volume
        let (category, options) = a.mode.session
        m.session.withLock { s in
            s.category = category
            s.options = options
            s.duckDB = a.duckDB
            s.resumeAfterInterruption = false
        }
        players.withLock { $0.append(m) }
        feed.publish("player.created", PlayerJSON.player(m), playerID: id)
        let item = AnnouncementQueue.Item(managed: m, upload: a.upload)
        let position = queue.state.withLock { s -> Int in
            if s.current == nil {
                s.current = item
                return 0
            }
            s.waiting.append(item)
            return s.waiting.count
        }
        var startTime: Double? = nil
        if position == 0 { startTime = startAnnouncement(item) }
        let body: JSONObject = [
            "id": .string(id), "mode": .string(a.mode.rawValue), "position": .int(Int64(position)),
            "startTime": startTime.map { .double($0) } ?? .null,
        ]
        return .json(.object(body), status: 202, headers: ["Location": "/api/v1/players/\(id)"])
    }

    /// Starts the head of the queue `leadSeconds` ahead on the device clock and ducks or
    /// interrupts the others for it; the device time of its first sample, or nil when it
    /// could not start (it is then removed and the next one starts).
    @discardableResult
    private func startAnnouncement(_ item: AnnouncementQueue.Item) -> Double? {
        let m = item.managed
        if m.player.prepare() {
            let time = engine.deviceCurrentTime + AnnouncementQueue.leadSeconds
            let result = m.player.play(atTime: time)
            if result.ok {
                sessionStarted([m])
                return result.startTime
            }
        }
        logger.warning("announcement \(m.id) could not start: \(m.player.lastError ?? "decoding failed")")
        sessionQueue.async { [weak self] in self?.finishAnnouncement(m.id) }
        return nil
    }

    /// Announcement bookkeeping after `id` stopped playing (finished, stopped or failed; not paused).
    func announcementEnded(_ id: String) {
        guard id.hasPrefix(AnnouncementQueue.idPrefix), let m = managed(id) else { return }
        let state = m.player.state
        guard state == .finished || state == .stopped || state == .idle else { return }
        finishAnnouncement(id)
    }

    /// Removes announcement `id` (its player, its upload) and starts the next one.
    private func finishAnnouncement(_ id: String) {
        let queue = announcements
        let (done, next) = queue.state.withLock { s -> (AnnouncementQueue.Item?, AnnouncementQueue.Item?) in
            var done: AnnouncementQueue.Item? = nil
            if s.current?.managed.id == id {
                done = s.current
                s.current = s.waiting.isEmpty ? nil : s.waiting.removeFirst()
                return (done, s.current)
            }
            if let i = s.waiting.firstIndex(where: { $0.managed.id == id }) { done = s.waiting.remove(at: i) }
            return (done, nil)
        }
        if let done { discard(done) }
        if let next { startAnnouncement(next) }
    }

    /// A player was deleted: if it was an announcement, it leaves the queue (no second removal).
    func announcementRemoved(_ id: String) {
        guard id.hasPrefix(AnnouncementQueue.idPrefix) else { return }
        let queue = announcements
        let (item, next) = queue.state.withLock { s -> (AnnouncementQueue.Item?, AnnouncementQueue.Item?) in
            if s.current?.managed.id == id {
                let item = s.current
                s.current = s.waiting.isEmpty ? nil : s.waiting.removeFirst()
                return (item, s.current)
            }
            if let i = s.waiting.firstIndex(where: { $0.managed.id == id }) { return (s.waiting.remove(at: i), nil) }
            return (nil, nil)
        }
        if let upload = item?.upload { unlink(upload) }
        if let next { sessionQueue.async { [weak self] in self?.startAnnouncement(next) } }
    }

    private func discard(_ item: AnnouncementQueue.Item) {
        let m = item.managed
        guard players.withLock({ $0.contains { $0 === m } }) else { return }
        removePlayer(m)  // sessionRemoved → announcementRemoved finds nothing left to do
        feed.publish("player.deleted", ["id": .string(m.id)], playerID: m.id)
        if let upload = item.upload { unlink(upload) }
    }
}
