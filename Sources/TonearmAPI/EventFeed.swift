import Foundation
import HTTPServer
import JSON
import Synchronization

/// The SSE feed of SPEC 4: numbers every event, keeps the recent state events in a bounded
/// ring for `Last-Event-ID` replay, and fans events out to subscribers with their filters.
/// Progress and meter events are produced per subscriber at its own interval by `tick`.
///
/// Thread rules: any thread; one Mutex guards the ring and the subscriber list. Streams
/// are written under it (EventStream.send only queues bytes, it never blocks).
final class EventFeed: Sendable {
    struct Record {
        var id: Int
        var event: String
        var data: String
        var playerID: String?
    }

    /// One connected client and what it asked for.
    final class Subscriber: @unchecked Sendable {
        let stream: EventStream
        let players: Set<String>?
        let progressInterval: Double
        let metersInterval: Double
        var nextProgress: Double
        var nextMeters: Double

        init(stream: EventStream, players: Set<String>?, progressInterval: Double, metersInterval: Double, now: Double) {
            self.stream = stream
            self.players = players
            self.progressInterval = progressInterval
            self.metersInterval = metersInterval
            nextProgress = now + progressInterval
            nextMeters = now + metersInterval
        }

        func wants(_ playerID: String?) -> Bool {
            guard let players, let playerID else { return true }
            return players.contains(playerID)
        }
    }

    private struct State {
        /// Ids continue across restarts (they start from the wall clock in milliseconds), so a
        /// client's Last-Event-ID from an earlier run is recognised as such.
        let firstID: Int
        var nextID: Int
        var ring: [Record] = []
        /// The id of the newest record pushed out of the ring (0: none yet).
        var evicted = 0
        var subscribers: [ObjectIdentifier: Subscriber] = [:]

        init() {
            firstID = Int(Date().timeIntervalSince1970 * 1000)
            nextID = firstID
        }
    }

    static let ringCapacity = 1024
    private let state = Mutex(State())
    /// Sees every published event (id, name, serialized data) after the subscribers: the webhooks.
    private let observer = Mutex<(@Sendable (Int, String, String) -> Void)?>(nil)

    /// Sets the function that sees every published state event. It is called on the
    /// publishing thread, outside the feed's lock, and must not block.
    func setObserver(_ function: @escaping @Sendable (Int, String, String) -> Void) {
        observer.withLock { $0 = function }
    }

    /// Numbers and sends a state event to every interested subscriber, and keeps it for replay.
    func publish(_ event: String, _ data: JSONValue, playerID: String?) {
        let text = data.serializedString(.compact)
        let id = state.withLock { s -> Int in
            let record = Record(id: s.nextID, event: event, data: text, playerID: playerID)
            s.nextID += 1
            s.ring.append(record)
            if s.ring.count > Self.ringCapacity {
                s.evicted = s.ring[s.ring.count - Self.ringCapacity - 1].id
                s.ring.removeFirst(s.ring.count - Self.ringCapacity)
            }
            for sub in s.subscribers.values where sub.wants(playerID) {
                sub.stream.send(id: String(record.id), event: record.event, data: record.data)
            }
            return record.id
        }
        observer.withLock { $0 }?(id, event, text)
    }

    /// Adds a subscriber; first replays the kept events after `lastEventID`. If that id is
    /// older than the ring, `resync` supplies the current state instead (sent as new events).
    func subscribe(_ subscriber: Subscriber, lastEventID: Int?, resync: () -> [(String, JSONValue, String?)]) {
        let resyncEvents: [(String, JSONValue, String?)]
        let needsResync = state.withLock { s -> Bool in
            guard let last = lastEventID else { return false }
            // Missed events fell out of the ring, or the id is from another run of the server.
            return last < s.evicted || last < s.firstID - 1 || last >= s.nextID
        }
        resyncEvents = needsResync ? resync() : []
        state.withLock { s in
            if let last = lastEventID {
                for record in s.ring where record.id > last && subscriber.wants(record.playerID) {
                    subscriber.stream.send(id: String(record.id), event: record.event, data: record.data)
                }
            }
            for (event, data, playerID) in resyncEvents where subscriber.wants(playerID) {
                subscriber.stream.send(id: String(s.nextID), event: event, data: data.serializedString(.compact))
                s.nextID += 1
            }
            s.subscribers[ObjectIdentifier(subscriber)] = subscriber
        }
        subscriber.stream.onTermination { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            self.unsubscribe(subscriber)
        }
    }

    func unsubscribe(_ subscriber: Subscriber) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
    }

    /// Which periodic events are due at `now` for anyone.
    func due(now: Double) -> (progress: Bool, meters: Bool) {
        state.withLock { s in
            var progress = false, meters = false
            for sub in s.subscribers.values {
                if sub.progressInterval > 0 && now >= sub.nextProgress { progress = true }
                if sub.metersInterval > 0 && now >= sub.nextMeters { meters = true }
            }
            return (progress, meters)
        }
    }

    /// Sends periodic events to the subscribers they are due for. `progress` and `meters`
    /// are (playerID, serialized data) pairs computed once for everyone.
    func tick(now: Double, progress: [(String, String)], meters: [(String, String)]) {
        state.withLock { s in
            for sub in s.subscribers.values {
                if sub.progressInterval > 0 && now >= sub.nextProgress {
                    sub.nextProgress = max(sub.nextProgress + sub.progressInterval, now)
                    for (id, data) in progress where sub.wants(id) {
                        sub.stream.send(id: String(s.nextID), event: "player.progress", data: data)
                        s.nextID += 1
                    }
                }
                if sub.metersInterval > 0 && now >= sub.nextMeters {
                    sub.nextMeters = max(sub.nextMeters + sub.metersInterval, now)
                    for (id, data) in meters where sub.wants(id) {
                        sub.stream.send(id: String(s.nextID), event: "player.meters", data: data)
                        s.nextID += 1
                    }
                }
            }
        }
    }
}
