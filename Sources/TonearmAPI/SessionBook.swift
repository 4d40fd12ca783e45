import Foundation

/// The bookkeeping of interruptions and ducks between players (SessionSettings): who is
/// paused by whom, who is ducked by whom, and which player started last (now playing).
/// A plain value kept behind `TonearmService.session`'s Mutex; the actions it leads to
/// (pause, play, volume ramps, events) are taken by TonearmService+Session outside the lock.
struct SessionBook: Sendable {
    /// The interrupter id of an external interruption (POST /api/v1/session/interruption).
    static let external = "#external"

    /// Player id → the ids of the players (or `external`) that interrupted it and have not
    /// ended yet. A player resumes when its set empties.
    var interruptedBy: [String: Set<String>] = [:]
    /// Player id → the ids of the `duckOthers` players lowering it.
    var duckedBy: [String: Set<String>] = [:]
    /// The external interruption is active.
    var externalActive = false
    /// The player most recently started (by a request or by resuming), for now playing.
    var lastStarted: String?

    func isInterrupted(_ id: String) -> Bool { !(interruptedBy[id]?.isEmpty ?? true) }

    /// Removes `interrupter` from every set; returns the players whose set became empty.
    mutating func release(interrupter: String) -> [String] {
        var freed: [String] = []
        for (id, var set) in interruptedBy where set.contains(interrupter) {
            set.remove(interrupter)
            if set.isEmpty {
                interruptedBy[id] = nil
                freed.append(id)
            } else {
                interruptedBy[id] = set
            }
        }
        return freed.sorted()
    }

    /// Removes `ducker` from every set; returns the players no longer ducked by anyone.
    mutating func releaseDucks(by ducker: String) -> [String] {
        var freed: [String] = []
        for (id, var set) in duckedBy where set.contains(ducker) {
            set.remove(ducker)
            if set.isEmpty {
                duckedBy[id] = nil
                freed.append(id)
            } else {
                duckedBy[id] = set
            }
        }
        return freed
    }
}
