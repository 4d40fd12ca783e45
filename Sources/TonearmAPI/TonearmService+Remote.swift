import AudioEngine
import Foundation
import HTTPServer
import JSON

/// Remote commands, now playing and external interruptions (issue 6): what a lock screen,
/// a media key or a home-automation system sends. Request handlers; microhttpd threads.
extension TonearmService {
    enum RemoteCommand: String, CaseIterable {
        case togglePlayPause, skipForward, skipBackward
    }

    /// POST /api/v1/players/{id}/command {command, interval?}.
    func command(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let m = try find(request.parameter("id") ?? "")
        var reader = try RequestJSON.object(request)
        let (name, interval) = try RequestJSON.validate { () throws(JSONFieldError) in
            let name = try reader.string("command")
            let interval = try reader.optionalDouble("interval", in: 0...3600) ?? 15
            try reader.finish()
            return (name, interval)
        }
        guard let command = RemoteCommand(rawValue: name) else {
            throw .invalid("command must be one of \(RemoteCommand.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
        }
        switch command {
        case .togglePlayPause:
            if m.player.isPlaying {
                m.player.pause()
                persist(m)
                sessionUserStopped(m)
            } else {
                try requireDevice()
                guard m.player.play() else {
                    throw .invalid("the sound could not be decoded: \(m.player.lastError ?? "decoding failed")")
                }
                sessionStarted([m])
            }
            return .json(PlayerJSON.player(m))
        case .skipForward:
            m.player.currentTime = min(m.player.duration, m.player.currentTime + interval)
            return updated(m)
        case .skipBackward:
            m.player.currentTime = max(0, m.player.currentTime - interval)
            return updated(m)
        }
    }

    /// GET /api/v1/nowplaying: the player most recently started, shaped for Home Assistant's
    /// media_player (position with the wall-clock time it was read); nulls and state `idle`
    /// when nothing has played (or that player was deleted).
    func nowPlaying(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let now = Timestamp.iso8601()
        guard let id = session.withLock({ $0.lastStarted }), let m = managed(id) else {
            return .json(["id": .null, "state": "idle", "playing": false, "url": .null, "metadata": .object([:]),
                          "duration": .null, "position": .null, "positionUpdatedAt": .null, "volume": .null, "rate": .null])
        }
        let player = PlayerJSON.player(m)
        let position = m.player.currentTime
        return .json(["id": .string(id), "state": player["state"] ?? "idle", "playing": player["playing"] ?? false,
                      "url": player["url"] ?? .null, "metadata": player["metadata"] ?? .object([:]),
                      "duration": .double(m.player.duration), "position": .double(position),
                      "positionUpdatedAt": .string(now), "volume": player["volume"] ?? .null,
                      "rate": .double(m.player.enableRate ? m.player.rate : 1)])
    }

    /// POST /api/v1/session/interruption {type: began|ended, shouldResume?}: an interruption
    /// from outside (an intercom call): pauses the playing players that do not mix, and on
    /// `ended` resumes them (unless `shouldResume` is false or their resumeAfterInterruption is).
    func interruption(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var reader = try RequestJSON.object(request)
        let (type, shouldResume) = try RequestJSON.validate { () throws(JSONFieldError) in
            let type = try reader.string("type")
            let resume = try reader.optionalBool("shouldResume")
            try reader.finish()
            return (type, resume)
        }
        switch type {
        case "began":
            let all = players.withLock { $0 }
            var paused: [ManagedPlayer] = []
            session.withLock { book in
                book.externalActive = true
                for q in all where q.player.isPlaying && !q.session.withLock({ $0.mixesWithOthers }) {
                    book.interruptedBy[q.id, default: []].insert(SessionBook.external)
                    paused.append(q)
                }
            }
            for q in paused {
                q.player.pause()
                persist(q)
                feed.publish("player.interruption", ["id": .string(q.id), "type": "began"], playerID: q.id)
            }
            return .json(["type": "began", "active": true, "players": .array(paused.map { .string($0.id) })])
        case "ended":
            let freed = session.withLock { book in
                book.externalActive = false
                return book.release(interrupter: SessionBook.external)
            }
            endInterruption(of: freed, shouldResume: shouldResume ?? true)
            return .json(["type": "ended", "active": false, "players": .array(freed.map { .string($0) })])
        default:
            throw .invalid("type must be one of began, ended, got '\(type)'")
        }
    }
}
