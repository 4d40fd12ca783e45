import AudioCore
import AudioDecoding
import AudioDSP
import Foundation
import Synchronization

/// Plays many players at once on one device timeline (AVAudioEngine's role).
///
/// Real-time mode drives an `OutputSink` from a render thread; offline mode (AVAudioEngine's
/// manual rendering) renders on demand with `render(frames:into:)`. Decode workers keep
/// each player's ring full; a monitor thread turns render-side counters into player state
/// changes and events.
///
/// Thread rules: every method is safe from any control-plane thread (changes serialize on one
/// read-write lock; reads share it); none may be called from the render thread.
package final class Engine: @unchecked Sendable {
    package let format: AudioFormat
    package let periodFrames: Int
    package let maximumPlayers: Int
    let mixer: Mixer
    let control: ReadWriteLock<ControlState>
    private let sink: (any OutputSink)?
    private let workers: [DecodeWorker]
    private let dataReady = PosixSemaphore()
    private let running = Atomic<Bool>(false)
    private let renderLoop: RenderLoop?
    private var monitorThread: Thread?
    private let eventHandler = Mutex<(@Sendable (EngineEvent) -> Void)?>(nil)
    private let offlineLock = Mutex<Void>(())
    /// What a lost device does to playing players.
    package let onDeviceLoss: DeviceLossPolicy
    /// Device losses and recoveries already reported as events; with the control lock held only.
    private var reportedLosses = 0
    private var reportedRecoveries = 0
    /// Seconds of audio each player's ring holds ahead of the mixer.
    static let ringSeconds = 0.5
    static let blockFrames = 1024
    /// The latest device time a start may be scheduled for (about 31 years).
    package static let maximumDeviceTime = 1e9

    /// A real-time engine playing to `sink`. Call `start()` to open the device. When the device
    /// goes away later, the engine emits `.routeChange`, applies `onDeviceLoss` to playing
    /// players and keeps reopening it with backoff.
    package convenience init(sink: any OutputSink, maximumPlayers: Int = 256, decodeThreads: Int = 2,
                             onDeviceLoss: DeviceLossPolicy = .pause) {
        self.init(format: sink.format, periodFrames: sink.periodFrames, sink: sink, maximumPlayers: maximumPlayers,
                  decodeThreads: decodeThreads, onDeviceLoss: onDeviceLoss)
    }

    /// An offline engine: nothing plays until `render(frames:into:)` asks for frames.
    package convenience init(offlineFormat format: AudioFormat, periodFrames: Int = 256, maximumPlayers: Int = 256, decodeThreads: Int = 2) {
        self.init(format: format, periodFrames: periodFrames, sink: nil, maximumPlayers: maximumPlayers, decodeThreads: decodeThreads)
    }

    private init(format: AudioFormat, periodFrames: Int, sink: (any OutputSink)?, maximumPlayers: Int, decodeThreads: Int,
                 onDeviceLoss: DeviceLossPolicy = .pause) {
        self.onDeviceLoss = onDeviceLoss
        self.format = format
        self.periodFrames = periodFrames
        self.maximumPlayers = maximumPlayers
        self.sink = sink
        let ready = dataReady
        workers = (0..<max(1, decodeThreads)).map { DecodeWorker(name: "tonearm-decode-\($0)", dataReady: ready) }
        mixer = Mixer(format: format, periodFrames: periodFrames, maximumVoices: maximumPlayers, workers: workers)
        control = ReadWriteLock(ControlState(maximumPlayers: maximumPlayers))
        let mixer = self.mixer
        renderLoop = sink.map { RenderLoop(mixer: mixer, sink: $0) }
        running.store(true, ordering: .releasing)
        let monitor = Thread { [weak self] in Engine.monitorLoop(self) }
        monitor.name = "tonearm-monitor"
        monitorThread = monitor
        monitor.start()
    }

    deinit {
        shutdown()
    }

    package var isOffline: Bool { sink == nil }

    /// Opens the sink and starts the render thread (real-time mode). Throws `OutputError`.
    package func start() throws {
        try renderLoop?.start()
    }

    /// Stops every thread and releases the device. Idempotent.
    package func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        renderLoop?.stop()
        for w in workers { w.stop() }
    }

    /// Calls `handler` on the monitor thread for every event.
    package func setEventHandler(_ handler: @escaping @Sendable (EngineEvent) -> Void) {
        eventHandler.withLock { $0 = handler }
    }

    // MARK: Device

    /// The device timeline in seconds: the next frame the mixer renders (SPEC 2.1).
    package var deviceCurrentTime: Double { Double(mixer.nextFrame.load(ordering: .acquiring)) / Double(format.sampleRate) }
    package var outputLatency: Double { sink?.outputLatency ?? 0 }
    package var xruns: Int { sink?.xruns ?? 0 }
    package var outputDescription: OutputDescription { sink?.description ?? OutputDescription(kind: "offline", name: "offline") }
    /// Why the device stopped accepting audio, while it is gone (nil again once it is back).
    package var deviceError: String? { renderLoop?.deviceError }
    /// Whether the output device is gone right now (the render thread keeps retrying it).
    package var isDeviceLost: Bool { renderLoop?.isDeviceLost ?? false }
    /// CPU seconds the render thread has used (real-time mode).
    package var renderCPUSeconds: Double { Double(renderLoop?.cpuNanoseconds.load(ordering: .relaxed) ?? 0) / 1e9 }
    /// Periods rendered so far.
    package var renderedCycles: Int { mixer.cycles.load(ordering: .relaxed) }
    /// Cycles in which some playing player had no audio ready (a decode worker fell behind).
    package var starvedCycles: Int {
        control.withReadLock { state in state.players.values.reduce(0) { $0 + $1.voice.starvedCycles.load(ordering: .relaxed) } }
    }

    // MARK: Offline rendering

    /// Offline mode: renders the next `frames` frames into `output` (interleaved) as fast as
    /// the decoders allow, waiting for audio instead of dropping it. Commands sent before the
    /// call apply at its first frame. One caller at a time.
    package func render(frames: Int, into output: UnsafeMutablePointer<Float>) {
        precondition(isOffline, "render(frames:into:) is for offline engines")
        let channels = format.channels
        offlineLock.withLock { _ in
            var done = 0
            while done < frames {
                let n = min(periodFrames, frames - done)
                mixer.cycle(frames: n, waitForData: dataReady)
                (output + done * channels).update(from: mixer.buffer, count: n * channels)
                done += n
            }
        }
    }

    /// Offline mode convenience: renders `frames` frames and returns them.
    package func render(frames: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: frames * format.channels) { buffer, count in
            render(frames: frames, into: buffer.baseAddress!)
            count = frames * format.channels
        }
    }

    // MARK: Players

    /// Opens `input` and adds a player for it. Throws `DecodeError` for a sound it cannot play.
    package func makePlayer(id: String, input: AudioInput, url: String? = nil) throws -> Player {
        try makePlayer(id: id, decoder: try AudioDecoders.open(input), url: url, schedule: nil)
    }

    /// Adds a player node (AVAudioPlayerNode): a player whose sound is a timeline of scheduled
    /// items in `channels` channels at the device rate. Throws `EngineError.tooManyPlayers`.
    package func makeNode(id: String, channels: Int) throws -> PlayerNode {
        let schedule = NodeSchedule(channels: channels, sampleRate: format.sampleRate)
        let player = try makePlayer(id: id, decoder: schedule, url: nil, schedule: schedule)
        return PlayerNode(player: player, schedule: schedule)
    }

    private func makePlayer(id: String, decoder: any AudioDecoder, url: String?, schedule: NodeSchedule?) throws -> Player {
        let settings = decoder.settings
        guard settings.numberOfChannels >= 1, settings.sampleRate > 0 else {
            throw DecodeError(.corrupt, "the sound reports \(settings.numberOfChannels) channels at \(settings.sampleRate) Hz")
        }
        let blockCount = max(8, Int(Engine.ringSeconds * Double(format.sampleRate)) / Engine.blockFrames)
        let ring = BlockRing(blockCount: blockCount, blockFrames: Engine.blockFrames, channels: settings.numberOfChannels)
        // A sound at another rate plays through its rate's resample bus when there can be one
        // (the voice then runs at the sound's rate); otherwise libsoxr converts it alone.
        let bus = resampleBus(forRate: settings.sampleRate)
        let rate = bus == nil ? format.sampleRate : settings.sampleRate
        let producer = try Producer(decoder: decoder, ring: ring, deviceRate: rate)
        let routing = ChannelRouting.make(soundChannels: settings.numberOfChannels, deviceChannels: format.channels, assignments: nil)
        let voice = Voice(ring: ring, soundChannels: settings.numberOfChannels, sourceLength: Double(decoder.frameCount), routing: routing,
                          deviceChannels: format.channels,
                          maximumFrames: bus.map { ResampleBus.maximumFrames(resampler: $0.resampler, periodFrames: periodFrames) } ?? periodFrames,
                          sampleRate: rate, bus: bus)
        let slot: Int32 = try control.withLock { state in
            guard let slot = state.freeSlots.popLast() else {
                throw EngineError.tooManyPlayers(maximumPlayers)
            }
            state.players[slot] = PlayerControl(id: id, voice: voice, producer: producer, soundChannels: settings.numberOfChannels,
                                                sourceRate: Double(settings.sampleRate), schedule: schedule)
            send(.attach(slot: slot, voice: Unmanaged.passRetained(voice).toOpaque()), in: &state)
            send(.pan(slot: slot, matrix: StereoPanner(pan: 0, sourceChannels: settings.numberOfChannels)), in: &state)
            return slot
        }
        workers[Int(slot) % workers.count].add(producer)
        return Player(engine: self, slot: slot, id: id, url: url, decoder: decoder)
    }

    /// The resample bus for sounds at `rate` (made on first use), or nil when the sound plays
    /// at the device rate or the ratio has too many phases.
    private func resampleBus(forRate rate: Int) -> (index: Int, resampler: PolyphaseResampler)? {
        guard rate != format.sampleRate else { return nil }
        return control.withLock { state -> (index: Int, resampler: PolyphaseResampler)? in
            if let existing = state.buses[rate] { return existing }
            guard state.buses.count < Mixer.maximumBuses,
                  let resampler = PolyphaseResampler(inputRate: rate, outputRate: format.sampleRate) else { return nil }
            let index = state.buses.count
            let bus = ResampleBus(resampler: resampler, channels: format.channels, periodFrames: periodFrames)
            send(.addBus(index: Int32(index), bus: Unmanaged.passRetained(bus).toOpaque()), in: &state)
            state.buses[rate] = (index, resampler)
            return (index, resampler)
        }
    }

    /// Removes a player: it stops at once and its buffers are released.
    func removePlayer(slot: Int32) {
        let producer: Producer? = control.withLock { state in
            guard let p = state.players.removeValue(forKey: slot) else { return nil }
            send(.detach(slot: slot), in: &state)
            state.freeSlots.append(slot)
            return p.producer
        }
        if let producer { workers[Int(slot) % workers.count].remove(producer) }
    }

    /// Starts several players so that their first frames land on the same device frame.
    /// All or none: every player is prepared first; if one fails, none starts.
    package func play(_ players: [Player], atTime time: Double) -> PlayResult {
        for p in players where !p.prepare() {
            return PlayResult(ok: false, startTime: nil, lateBy: 0)
        }
        // A time the device clock cannot reach (or not a number) is pinned to the range, never trapped on.
        let seconds = time.isFinite ? min(max(time, 0), Engine.maximumDeviceTime) : 0
        let startFrame = Int64((seconds * Double(format.sampleRate)).rounded())
        let late = control.withLock { state -> Int64 in
            for p in players { p.sendPlay(startFrame: startFrame, startTime: time, in: &state) }
            return mixer.nextFrame.load(ordering: .acquiring) - startFrame
        }
        return PlayResult(ok: true, startTime: time, lateBy: max(0, Double(late) / Double(format.sampleRate)))
    }

    // MARK: Internals

    /// Pushes a command for the render thread. Call with the control lock held.
    func send(_ command: EngineCommand, in state: inout ControlState) {
        while !mixer.commands.push(command) {
            usleep(1000)  // the render thread drains the queue every period
        }
        state.sentCommands += 1
    }

    /// Real-time mode: waits (briefly) until the render thread has applied every command so far.
    func waitForRenderThread() {
        guard renderLoop?.isRunning == true else { return }
        let sent = control.withReadLock { $0.sentCommands }
        let deadline = MonotonicClock.nanoseconds() + 200_000_000
        while mixer.appliedCommands.load(ordering: .acquiring) < sent && MonotonicClock.nanoseconds() < deadline {
            usleep(500)
        }
    }

    /// Waits until `producer` has queued `blocks` blocks of `generation` (or ended); false on timeout.
    func waitForAudio(_ producer: Producer, generation: UInt32, blocks: Int, timeout seconds: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while !producer.isReady(generation: generation, blocks: blocks) {
            // Offline, stale blocks leave the ring only at the next render call (which waits
            // for audio itself), so a ring they fill cannot get ready before then.
            if isOffline && (producer.ring.free.count == 0 || producer.ring.filled.count >= blocks) { return true }
            if MonotonicClock.nanoseconds() >= deadline { return false }
            dataReady.wait(milliseconds: 2)
        }
        return true
    }

    /// The monitor thread: polls every 5 ms while the engine exists and runs.
    private static func monitorLoop(_ engine: Engine?) {
        weak let weakEngine = engine
        while true {
            do {
                guard let engine = weakEngine, engine.running.load(ordering: .acquiring) else { return }
                engine.poll()
            }
            usleep(5_000)
        }
    }

    /// Turns render-side counters into state changes and events and releases retired voices.
    /// The monitor thread calls it every 5 ms; offline users call it after rendering to see
    /// the state changes at once.
    package func poll() {
        while let p = mixer.retired.pop() { Unmanaged<Voice>.fromOpaque(p).release() }
        let events: [EngineEvent] = control.withLock { state in
            if let renderLoop { checkDevice(renderLoop, in: &state) }
            for slot in Array(state.players.keys) {
                checkCounters(slot: slot, in: &state)
                checkSchedule(slot: slot, in: &state)
            }
            defer { state.events.removeAll() }
            return state.events
        }
        guard !events.isEmpty, let handler = eventHandler.withLock({ $0 }) else { return }
        for e in events { handler(e) }
    }

    /// Control lock held (monitor thread): turns the render loop's loss and recovery counts into
    /// route-change events, in order, and pauses playing players on a loss (policy `.pause`).
    private func checkDevice(_ loop: RenderLoop, in state: inout ControlState) {
        let losses = loop.losses.load(ordering: .acquiring)
        let recoveries = loop.recoveries.load(ordering: .acquiring)
        while reportedLosses != losses || reportedRecoveries != recoveries {
            if reportedLosses == reportedRecoveries {
                reportedLosses &+= 1
                let why = loop.latestFailure ?? "the output device was lost"
                state.events.append(.routeChange(reason: "oldDeviceUnavailable", detail: why))
                if onDeviceLoss == .pause { pauseAllForDeviceLoss(in: &state) }
            } else {
                reportedRecoveries &+= 1
                let output = outputDescription
                state.events.append(.routeChange(reason: "newDeviceAvailable", detail: "\(output.kind):\(output.name)"))
            }
        }
    }

    /// Control lock held: pauses every playing or scheduled player, keeping its position (as `Player.pause` does).
    private func pauseAllForDeviceLoss(in state: inout ControlState) {
        for slot in state.players.keys.sorted() {
            guard var p = state.players[slot], p.state == .playing || p.state == .scheduled else { continue }
            send(.pause(slot: slot), in: &state)
            p.state = .paused
            state.events.append(.stateChanged(playerID: p.id, state: .paused))
            state.players[slot] = p
        }
    }

    /// Control lock held: reports a node's finished items when their callback type's moment
    /// has come (consumed: read by the worker; rendered: mixed; played back: rendered plus
    /// the output latency, on the device clock).
    private func checkSchedule(slot: Int32, in state: inout ControlState) {
        guard var p = state.players[slot], let schedule = p.schedule else { return }
        let now = mixer.nextFrame.load(ordering: .acquiring)
        for c in schedule.takeConsumed() {
            if c.callbackType == .dataConsumed {
                state.events.append(completion(p.id, c, frame: now, cancelled: false))
            } else {
                p.awaitingRender.append(c)
            }
        }
        let flushed = p.pendingSeek.map { mixer.appliedCommands.load(ordering: .acquiring) >= $0.command } ?? true
        if !p.awaitingRender.isEmpty, flushed, let anchor = p.voice.anchor {
            let step = p.stretching ? p.rate : 1
            let latency = Int64((outputLatency * Double(format.sampleRate)).rounded())
            var waiting: [NodeCompletion] = []
            for var c in p.awaitingRender {
                guard anchor.position >= Double(c.end) else { waiting.append(c); continue }
                c.renderedFrame = anchor.frame - Int64(((anchor.position - Double(c.end)) / step).rounded())
                if c.callbackType == .dataRendered {
                    state.events.append(completion(p.id, c, frame: c.renderedFrame, cancelled: false))
                } else {
                    c.playedBackFrame = c.renderedFrame + latency
                    p.awaitingPlayback.append(c)
                }
            }
            p.awaitingRender = waiting
        }
        p.awaitingPlayback.removeAll { c in
            guard now >= c.playedBackFrame else { return false }
            state.events.append(completion(p.id, c, frame: c.playedBackFrame, cancelled: false))
            return true
        }
        state.players[slot] = p
    }

    /// Control lock held: unschedules everything on a node; items not reported yet are
    /// reported as cancelled (AVAudioPlayerNode calls their handlers on stop).
    func cancelSchedule(slot: Int32, in state: inout ControlState) {
        guard var p = state.players[slot], let schedule = p.schedule else { return }
        let now = mixer.nextFrame.load(ordering: .acquiring)
        var pending = p.awaitingRender + p.awaitingPlayback + schedule.takeConsumed()
        pending += schedule.removeAll().map { NodeCompletion(item: $0.id, callbackType: $0.callbackType, end: $0.end) }
        for c in pending { state.events.append(completion(p.id, c, frame: now, cancelled: true)) }
        p.awaitingRender = []
        p.awaitingPlayback = []
        state.players[slot] = p
    }

    private func completion(_ node: String, _ c: NodeCompletion, frame: Int64, cancelled: Bool) -> EngineEvent {
        .nodeCompleted(nodeID: node, item: c.item, callbackType: c.callbackType, sampleTime: c.end,
                       deviceTime: Double(frame) / Double(format.sampleRate), cancelled: cancelled)
    }

    private func checkCounters(slot: Int32, in state: inout ControlState) {
        guard var p = state.players[slot] else { return }
        let started = p.voice.startedCount.load(ordering: .acquiring)
        let finished = p.voice.finishedCount.load(ordering: .acquiring)
        let failed = p.voice.failedCount.load(ordering: .acquiring)
        if started != p.seenStarted {
            p.seenStarted = started
            if p.state == .scheduled {
                p.state = .playing
                state.events.append(.stateChanged(playerID: p.id, state: .playing))
            }
        }
        if finished != p.seenFinished || failed != p.seenFailed {
            let success = failed == p.seenFailed
            p.seenFinished = finished
            p.seenFailed = failed
            if !success {
                let message = p.producer.errorMessage.withLock { $0 } ?? "decoding failed"
                state.events.append(.decodeError(playerID: p.id, message: message))
            }
            p.state = .finished
            p.prepared = false
            p.startTime = nil
            p.generation &+= 1
            p.producer.request.withLock { $0 = ProducerRequest(generation: p.generation, seekFrame: 0, producing: false, stretching: p.stretching) }
            send(.flush(slot: slot, generation: p.generation, position: 0), in: &state)
            p.pendingSeek = (0, state.sentCommands)
            state.events.append(.stateChanged(playerID: p.id, state: .finished))
            state.events.append(.finished(playerID: p.id, successfully: success))
        }
        state.players[slot] = p
    }
}

/// Errors of the engine itself (not of a decoder or device). The API maps `tooManyPlayers`
/// and `rateNotEnabled` to 409 (a conflict with the player's or engine's state) and
/// `invalidRate` and `invalidChannelAssignments` to 422 (a bad value).
package enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooManyPlayers(Int)
    /// `rate` was set on a player whose `enableRate` was false when it was prepared; the text says why.
    case rateNotEnabled(String)
    /// A rate outside 0.5…2.0 (or not a number).
    case invalidRate(Double)
    /// Channel assignments that do not fit the sound or the device; the text says which entry.
    case invalidChannelAssignments(String)

    package var description: String {
        switch self {
        case let .tooManyPlayers(n): "this engine already has its maximum of \(n) players"
        case let .rateNotEnabled(why): why
        case let .invalidRate(r): "rate \(r) is outside 0.5…2.0"
        case let .invalidChannelAssignments(why): why
        }
    }
}
