import AudioCore
import AudioDecoding
import AudioEngine
import Foundation
import HTTPServer
import JSON
import Logging
import Synchronization

/// The REST resources, event feed, security and persistence of SPEC 3 and 4: maps HTTP
/// requests to the engine. Handlers run on microhttpd connection threads and reach the
/// engine through its own lock; the registry of players is behind `players`.
package final class TonearmService: Sendable {
    let engine: Engine
    let configuration: APIConfiguration
    let store: StateStore
    let media: MediaLibrary
    let feed = EventFeed()
    /// Announcements waiting or playing, in order.
    let announcements = AnnouncementQueue()
    let requestGuard: RequestGuard
    let logger: Logger
    /// Players by id, in creation order.
    let players = ReadWriteLock<[ManagedPlayer]>([])
    /// Player nodes, in creation order.
    let nodes = ReadWriteLock<[NodeEntry]>([])
    /// Interruptions, ducks and now playing between players (TonearmService+Session).
    let session = Mutex(SessionBook())
    /// Where engine events are turned into session actions (resuming may wait for audio).
    let sessionQueue = DispatchQueue(label: "tonearm-session")
    /// Registered webhooks; every published event is offered to them.
    let hooks: WebhookRegistry
    private let running = Atomic<Bool>(true)
    private let tickerDone = PosixSemaphore()

    package init(engine: Engine, configuration: APIConfiguration, logger: Logger) throws {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
        store = try StateStore(root: configuration.stateDirectory)
        media = MediaLibrary(roots: configuration.mediaRoots)
        requestGuard = RequestGuard(token: configuration.token, extraHosts: configuration.allowedHosts)
        hooks = try WebhookRegistry(directory: configuration.stateDirectory + "/hooks", logger: logger)
        let registry = hooks
        feed.setObserver { id, event, data in registry.offer(eventID: id, event: event, data: data) }
        engine.setEventHandler { [weak self] event in self?.engineEvent(event) }
        let ticker = Thread { [weak self] in TonearmService.tickerLoop(self) }
        ticker.name = "tonearm-events"
        ticker.start()
    }

    /// Stops the event ticker. The engine and server are stopped by their owners.
    package func shutdown() {
        running.store(false, ordering: .releasing)
        hooks.stopAll()
    }

    // MARK: Players registry

    func find(_ id: String) throws(APIError) -> ManagedPlayer {
        guard let m = players.withReadLock({ $0.first { $0.id == id } }) else {
            throw .notFound("no player with id '\(id)'")
        }
        return m
    }

    /// The engine player behind the API player `id`, or nil (for in-process benchmarks that
    /// read engine-level facts such as `firstFrameRenderedAt`). Any thread.
    package func player(id: String) -> Player? {
        players.withLock { $0.first { $0.id == id }?.player }
    }

    func persist(_ m: ManagedPlayer) {
        guard m.persistent else { return }
        store.save(id: m.id, source: m.source, settings: m.settings, createdAt: m.createdAt)
    }

    /// Re-creates the saved players (not playing). Sounds that are gone are logged and dropped.
    package func restore() {
        for saved in store.load() {
            do {
                let source: PlayerSource
                if let upload = saved.uploadPath {
                    source = .upload(path: upload)
                } else if let url = saved.url {
                    let resolved = try media.resolve(url)
                    source = .file(path: resolved.path, url: resolved.url)
                } else { continue }
                var reader = try JSONObjectReader(saved.settings)
                let settings = try PlayerSettings(reading: &reader)
                _ = try createPlayer(id: saved.id, source: source, settings: settings, createdAt: saved.createdAt, persist: false)
            } catch {
                logger.warning("could not restore player '\(saved.id)': \(error)")
            }
        }
    }

    // MARK: Events

    private func engineEvent(_ event: EngineEvent) {
        switch event {
        case let .stateChanged(id, _) where id.hasPrefix("node:"):
            let nodeID = String(id.dropFirst("node:".count))
            if let n = nodes.withReadLock({ $0.first { $0.nodeID == nodeID } }) {
                feed.publish("node.state", NodeJSON.state(n.node), playerID: nodeID)
            }
        case let .nodeCompleted(id, item, callbackType, sampleTime, deviceTime, cancelled):
            let nodeID = String(id.dropFirst("node:".count))
            feed.publish("node.completed", ["node": .string(nodeID), "item": .string(item), "callbackType": .string(callbackType.rawValue),
                                            "sampleTime": .int(sampleTime), "deviceTime": .double(deviceTime), "cancelled": .bool(cancelled)],
                         playerID: nodeID)
        case let .stateChanged(id, state):
            if state == .paused || state == .stopped || state == .finished {
                sessionQueue.async { [weak self] in self?.sessionEnded(id) }
            }
            if let m = players.withLock({ $0.first { $0.id == id } }) {
                feed.publish("player.state", PlayerJSON.state(m.player), playerID: id)
                if case .finished = m.player.state { persist(m) }
            }
        case let .finished(id, successfully):
            feed.publish("player.finished", ["id": .string(id), "successfully": .bool(successfully)], playerID: id)
        case let .decodeError(id, message):
            feed.publish("player.decodeError", ["id": .string(id), "error": .string(message)], playerID: id)
        case let .routeChange(reason, detail):
            var data: JSONObject = ["reason": .string(reason)]
            if !detail.isEmpty { data["detail"] = .string(detail) }
            feed.publish("device.routeChange", .object(data), playerID: nil)
            feed.publish("device.state", deviceJSON(), playerID: nil)
        }
    }

    /// The events thread: progress and meter events at each subscriber's interval, and a
    /// device.state event when the device's health changes.
    private static func tickerLoop(_ service: TonearmService?) {
        weak let weakService = service
        var lastDevice: (Int, String?) = (0, nil)
        var lastDeviceCheck = 0.0
        while true {
            do {
                guard let s = weakService, s.running.load(ordering: .acquiring) else { return }
                let now = MonotonicClock.seconds
                let due = s.feed.due(now: now)
                if due.progress || due.meters {
                    let list = s.players.withReadLock { $0 }
                    var progress: [(String, String)] = []
                    var meters: [(String, String)] = []
                    for m in list {
                        let v = m.player.snapshot()
                        guard v.isPlaying || v.state == .paused else { continue }
                        if due.progress { progress.append((m.id, PlayerJSON.progress(m.player, v).serializedString(.compact))) }
                        if due.meters && v.meteringEnabled {
                            meters.append((m.id, (["id": .string(m.id), "channels": PlayerJSON.meterChannels(m.player)] as JSONValue).serializedString(.compact)))
                        }
                    }
                    s.feed.tick(now: now, progress: progress, meters: meters)
                }
                if now - lastDeviceCheck >= 1 {
                    lastDeviceCheck = now
                    let device = (s.engine.xruns, s.engine.deviceError)
                    if device.0 != lastDevice.0 || device.1 != lastDevice.1 {
                        lastDevice = device
                        s.feed.publish("device.state", s.deviceJSON(), playerID: nil)
                    }
                }
            }
            usleep(20_000)
        }
    }

    func deviceJSON() -> JSONValue {
        let output = engine.outputDescription
        var o: JSONObject = [
            "sampleRate": .int(Int64(engine.format.sampleRate)), "channels": .int(Int64(engine.format.channels)),
            "deviceCurrentTime": .double(engine.deviceCurrentTime), "outputLatency": .double(engine.outputLatency),
            "periodFrames": .int(Int64(engine.periodFrames)),
            "output": ["kind": .string(output.kind), "name": .string(output.name)],
            "state": .string(engine.isDeviceLost ? "lost" : engine.deviceError == nil ? "running" : "failed"),
            "xruns": .int(Int64(engine.xruns)),
        ]
        if let error = engine.deviceError { o["error"] = .string(error) }
        return .object(o)
    }
}

extension MonotonicClock {
    /// CLOCK_MONOTONIC in seconds.
    static var seconds: Double { Double(nanoseconds()) / 1e9 }
}

extension TonearmService {
    /// Writes every player's record (at shutdown, so positions survive a restart).
    package func persistAll() {
        for m in players.withLock({ $0 }) { persist(m) }
    }
}
