import AudioEngine
import Foundation
import JSON

/// Session categories between players (SessionSettings): a started player that does not mix
/// interrupts the playing players that do not mix (they pause, get `player.interruption`
/// began, and resume on ended), and a `duckOthers` player lowers the others while it plays.
///
/// Ducks are scheduled on the device clock (`Player.scheduleVolume`): the others reach the
/// ducked volume over the `duckLandingSeconds` that end on the ducker's first frame — its
/// scheduled start when it has one, else the device frame playing when the request is
/// handled. They are restored with a `SessionSettings.duckRampSeconds` ramp once it ends.
///
/// Threads: request handlers call `sessionStarted`, `sessionUserStopped` and
/// `sessionRemoved`; engine events reach `sessionEnded` on `sessionQueue`. The bookkeeping is
/// under `session`'s lock; pausing, resuming, ramps and events happen outside it.
extension TonearmService {
    /// Seconds of the ramp that ducks the others, ending on the ducker's first frame (short, so
    /// it is not heard as a fade; scheduled ducks have landed when the announcement begins).
    static let duckLandingSeconds = 0.01

    func managed(_ id: String) -> ManagedPlayer? { players.withLock { $0.first { $0.id == id } } }

    private static func mixes(_ m: ManagedPlayer) -> Bool { m.session.withLock { $0.mixesWithOthers } }

    /// `started` began playing (or were scheduled) at a request: they interrupt and duck the others.
    func sessionStarted(_ started: [ManagedPlayer]) {
        let ids = Set(started.map(\.id))
        let all = players.withLock { $0 }
        let interrupters = started.filter { !Self.mixes($0) }.map(\.id)
        let duckers = started.filter { $0.session.withLock { $0.ducksOthers } }
        var toPause: [ManagedPlayer] = []
        var toDuck: [(ManagedPlayer, Double, Double)] = []  // player, factor, device time of the ducker's first frame
        session.withLock { book in
            for id in ids { book.interruptedBy[id] = nil }  // started by hand: no resume pending any more
            if let last = started.last { book.lastStarted = last.id }
            let others = all.filter { !ids.contains($0.id) && $0.player.isPlaying }
            if !interrupters.isEmpty {
                for q in others where !Self.mixes(q) {
                    book.interruptedBy[q.id, default: []].formUnion(interrupters)
                    toPause.append(q)
                }
            }
            for d in duckers {
                let factor = d.session.withLock { $0.duckFactor }
                let start = d.player.startTime ?? engine.deviceCurrentTime
                for q in others where !toPause.contains(where: { $0 === q }) {
                    let wasDucked = !(book.duckedBy[q.id]?.isEmpty ?? true)
                    book.duckedBy[q.id, default: []].insert(d.id)
                    if !wasDucked { toDuck.append((q, factor, start)) }
                }
            }
        }
        for q in toPause {
            q.player.pause()
            persist(q)
            feed.publish("player.interruption", ["id": .string(q.id), "type": "began"], playerID: q.id)
        }
        for (q, factor, start) in toDuck {
            let base = q.duckedFrom.withLock { saved -> Double in
                if saved == nil { saved = q.player.volume }
                return saved ?? 1
            }
            // The ramp ends on the ducker's first frame: its first sample already plays over the ducked mix.
            q.player.scheduleVolume(base * factor, atDeviceTime: start - Self.duckLandingSeconds, rampDuration: Self.duckLandingSeconds)
        }
    }

    /// `id` stopped playing (paused, stopped or finished; an engine event): what it interrupted
    /// resumes and what it ducked is restored — unless it plays again by now. A player paused by
    /// an interruption keeps its own interruptions (they resume after it, like a stack).
    func sessionEnded(_ id: String) {
        guard let m = managed(id), !m.player.isPlaying else { return }
        endInterrupter(id, keepInterruptions: session.withLock { $0.isInterrupted(id) })
        announcementEnded(id)
    }

    /// The user paused or stopped `m`: a pending resume of it is cancelled, and what it
    /// interrupted or ducked ends.
    func sessionUserStopped(_ m: ManagedPlayer) {
        session.withLock { _ = $0.interruptedBy.removeValue(forKey: m.id) }
        endInterrupter(m.id, keepInterruptions: false)
    }

    /// Player `id` was deleted (or replaced).
    func sessionRemoved(_ id: String) {
        session.withLock { book in
            book.interruptedBy[id] = nil
            book.duckedBy[id] = nil
            if book.lastStarted == id { book.lastStarted = nil }
        }
        endInterrupter(id, keepInterruptions: false)
        announcementRemoved(id)
    }

    private func endInterrupter(_ id: String, keepInterruptions: Bool) {
        let (freed, unducked) = session.withLock { book in
            (keepInterruptions ? [] : book.release(interrupter: id), book.releaseDucks(by: id))
        }
        restoreDucks(unducked)
        endInterruption(of: freed, shouldResume: true)
    }

    /// Ramps the players no longer ducked back to the volume they had.
    private func restoreDucks(_ ids: [String]) {
        for id in ids {
            guard let q = managed(id) else { continue }
            let base = q.duckedFrom.withLock { saved -> Double? in
                defer { saved = nil }
                return saved
            }
            // Scheduled at once (time 0 has passed): it also replaces a duck that has not landed yet.
            if let base { q.player.scheduleVolume(base, atDeviceTime: 0, rampDuration: SessionSettings.duckRampSeconds) }
        }
    }

    /// The interruptions of `ids` ended. A player that would resume while a player that does
    /// not mix (other than those of `ids`) plays is handed over to that one instead (no event); the others get
    /// `player.interruption` ended and resume when `shouldResume` and their
    /// `resumeAfterInterruption` say so.
    func endInterruption(of ids: [String], shouldResume: Bool) {
        guard !ids.isEmpty else { return }
        let all = players.withLock { $0 }
        for id in ids {
            guard let q = all.first(where: { $0.id == id }) else { continue }
            if shouldResume, !Self.mixes(q),
               let blocker = all.first(where: { !ids.contains($0.id) && $0.player.isPlaying && !Self.mixes($0) }) {
                session.withLock { _ = $0.interruptedBy[id, default: []].insert(blocker.id) }
                continue
            }
            feed.publish("player.interruption", ["id": .string(id), "type": "ended", "shouldResume": .bool(shouldResume)], playerID: id)
            if shouldResume && q.session.withLock({ $0.resumeAfterInterruption }) && q.player.state == .paused {
                if q.player.play() {
                    session.withLock { $0.lastStarted = id }
                    persist(q)
                }
            } else if q.player.state == .paused {
                // It stays paused: what it had interrupted itself ends now.
                endInterrupter(id, keepInterruptions: false)
            }
        }
    }

    /// Sets a player's volume; while it is ducked, the new volume is what the duck restores to.
    func setVolumeRespectingDuck(_ volume: Double, of m: ManagedPlayer) {
        let duckers = session.withLock { $0.duckedBy[m.id] ?? [] }
        let factor = duckers.compactMap { managed($0) }.first.map { d in d.session.withLock { $0.duckFactor } }
        if let factor {
            m.duckedFrom.withLock { $0 = volume }
            m.player.volume = volume * factor
        } else {
            m.player.volume = volume
        }
    }
}
