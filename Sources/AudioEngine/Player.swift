import AudioCore
import AudioDecoding
import AudioDSP
import Foundation

/// One sound and its transport, with AVAudioPlayer's semantics (SPEC 2.2).
///
/// Thread rules: any control-plane thread; every call serializes on the engine's lock.
/// Removing the player (or dropping the last reference) stops it and frees its buffers.
package final class Player: @unchecked Sendable {
    package let id: String
    /// The `file://` URL of the sound, or nil for uploaded bytes.
    package let url: String?
    package let settings: SoundSettings
    package let metadata: SoundMetadata
    /// Frames in the sound at its own rate.
    package let frameCount: Int64
    let engine: Engine
    let slot: Int32
    private let sampleRate: Double

    init(engine: Engine, slot: Int32, id: String, url: String?, decoder: any AudioDecoder) {
        self.engine = engine
        self.slot = slot
        self.id = id
        self.url = url
        settings = decoder.settings
        metadata = decoder.metadata
        frameCount = decoder.frameCount
        sampleRate = Double(decoder.settings.sampleRate)
    }

    deinit { engine.removePlayer(slot: slot) }

    /// Stops the player and releases its buffers; it must not be used afterwards.
    package func remove() { engine.removePlayer(slot: slot) }

    package var duration: Double { Double(frameCount) / sampleRate }
    package var numberOfChannels: Int { settings.numberOfChannels }
    package var deviceCurrentTime: Double { engine.deviceCurrentTime }

    private func withControl<T>(_ body: (inout PlayerControl, inout ControlState) throws -> T) rethrows -> T? {
        try engine.control.withLock { state in
            guard var p = state.players[slot] else { return nil }
            defer { state.players[slot] = p }
            return try body(&p, &state)
        }
    }

    /// Reads under the engine's lock without writing the record back (cheaper than `withControl`).
    private func readControl<T>(_ body: (PlayerControl, ControlState) -> T) -> T? {
        engine.control.withReadLock { state in
            guard let p = state.players[slot] else { return nil }
            return body(p, state)
        }
    }

    /// Every property a client reads, taken under one acquisition of the engine's lock (the
    /// API renders players from this: per-property locking collapses under many connections).
    package func snapshot() -> PlayerSnapshot {
        let device = engine.deviceCurrentTime
        return readControl { p, state in
            var volume = p.volume
            if let command = p.fadeCommand {
                let gain = p.voice.currentGain
                if engine.mixer.appliedCommands.load(ordering: .acquiring) < command || gain.ramping { volume = Double(gain.value) }
            }
            return PlayerSnapshot(state: p.state, volume: volume, pan: p.pan, enableRate: p.enableRate, rate: p.rate,
                                  numberOfLoops: p.producer.numberOfLoops.load(ordering: .relaxed),
                                  meteringEnabled: p.meteringEnabled, currentTime: currentFrames(p, state) / sampleRate,
                                  channelAssignments: p.channelAssignments, startTime: p.startTime, deviceCurrentTime: device)
        } ?? PlayerSnapshot(state: .stopped, volume: 0, pan: 0, enableRate: false, rate: 1, numberOfLoops: 0, meteringEnabled: false,
                            currentTime: 0, channelAssignments: nil, startTime: nil, deviceCurrentTime: device)
    }

    package var state: PlayerState { readControl { p, _ in p.state } ?? .stopped }
    package var isPlaying: Bool { state == .playing || state == .scheduled }
    /// When (CLOCK_MONOTONIC, ns) the render thread rendered the first frame of the latest start; 0 before any.
    package var firstFrameRenderedAt: UInt64 {
        withControl { p, _ in p.voice.startedAtNanoseconds.load(ordering: .relaxed) } ?? 0
    }

    /// Why decoding failed, if it did (the text of the last decodeError).
    package var lastError: String? { withControl { p, _ in p.producer.errorMessage.withLock { $0 } } ?? nil }
    /// Device time of the pending or last scheduled start.
    package var startTime: Double? { readControl { p, _ in p.startTime } ?? nil }

    // MARK: Transport

    /// Preloads audio so `play` starts at once; true when audio is ready.
    @discardableResult
    package func prepare() -> Bool {
        let prepared: (BlockRing, Producer, UInt32, Int)? = withControl { p, state -> (BlockRing, Producer, UInt32, Int)? in
            if p.prepared { return nil }
            let position = currentFrames(p, state)
            p.generation &+= 1
            let generation = p.generation
            p.stretching = p.enableRate
            p.producer.tempo.store((p.enableRate ? p.rate : 1).bitPattern, ordering: .relaxed)
            let stretching = p.stretching
            p.producer.request.withLock {
                $0 = ProducerRequest(generation: generation, seekFrame: Int64(max(0, min(position, Double(frameCount))).rounded(.down)), producing: true, stretching: stretching)
            }
            engine.send(.flush(slot: slot, generation: generation, position: position.rounded(.down)), in: &state)
            p.pendingSeek = (position.rounded(.down), state.sentCommands)
            p.prepared = true
            if p.state == .idle || p.state == .stopped || p.state == .finished { p.state = .prepared }
            return (p.voice.ring, p.producer, generation, p.producer.blocksToPrepare(stretching: stretching))
        } ?? nil
        guard let (ring, producer, generation, ahead) = prepared else { return readControl { p, _ in p.prepared } ?? false }
        let wanted = min(ahead, ring.blockCount - 1)
        _ = engine.waitForAudio(producer, generation: generation, blocks: wanted, timeout: 3)
        let failed = withControl { p, _ in p.producer.errorMessage.withLock { $0 } != nil && ring.filled.count <= 1 } ?? true
        return !failed
    }

    /// Starts (or resumes) playing as soon as possible. Playing while playing succeeds and does nothing.
    @discardableResult
    package func play() -> Bool {
        if isPlaying { return true }
        guard prepare() else { return false }
        return withControl { p, state in
            if p.state == .playing || p.state == .scheduled { return true }
            engine.send(.play(slot: slot, startFrame: -1), in: &state)
            p.state = .playing
            p.startTime = nil
            state.events.append(.stateChanged(playerID: p.id, state: .playing))
            return true
        } ?? false
    }

    /// Starts so that the first frame plays at device time `time` (seconds), even if that time
    /// has already passed (then it starts as far into the sound as it would have been).
    package func play(atTime time: Double) -> PlayResult {
        if isPlaying { return PlayResult(ok: true, startTime: startTime, lateBy: 0) }
        return engine.play([self], atTime: time)
    }

    /// Control lock held: schedules the start at `startFrame`.
    func sendPlay(startFrame: Int64, startTime: Double, in state: inout ControlState) {
        guard var p = state.players[slot] else { return }
        if p.state != .playing && p.state != .scheduled {
            engine.send(.play(slot: slot, startFrame: startFrame), in: &state)
            p.state = .scheduled
            p.startTime = startTime
            state.events.append(.stateChanged(playerID: p.id, state: .scheduled))
        }
        state.players[slot] = p
    }

    /// Pauses; `play` resumes on the next sample.
    package func pause() {
        withControl { p, state in
            guard p.state == .playing || p.state == .scheduled else { return }
            engine.send(.pause(slot: slot), in: &state)
            p.state = .paused
            state.events.append(.stateChanged(playerID: p.id, state: .paused))
        }
        engine.waitForRenderThread()
    }

    /// Stops and undoes `prepare`; `currentTime` is kept, so `play` resumes there.
    package func stop() {
        withControl { p, state in
            guard p.state != .stopped && p.state != .idle else { return }
            engine.send(.stop(slot: slot), in: &state)
            p.producer.request.withLock { $0.producing = false }
            p.prepared = false
            p.state = .stopped
            p.startTime = nil
            state.events.append(.stateChanged(playerID: p.id, state: .stopped))
        }
        engine.waitForRenderThread()
    }

    // MARK: Position

    /// Control lock held: the position in source frames, including a seek not yet applied.
    private func currentFrames(_ p: PlayerControl, _ state: ControlState) -> Double {
        if let seek = p.pendingSeek, engine.mixer.appliedCommands.load(ordering: .acquiring) < seek.command {
            return seek.frames
        }
        return p.voice.positionFrames
    }

    /// Seconds into the sound; setting it seeks (playing or not).
    package var currentTime: Double {
        get { withControl { p, state in currentFrames(p, state) / sampleRate } ?? 0 }
        set { seek(to: newValue) }
    }

    private func seek(to seconds: Double) {
        withControl { p, state in
            let frames = seconds.isFinite ? max(0, min(Double(frameCount), (seconds * sampleRate).rounded())) : 0
            p.generation &+= 1
            let generation = p.generation
            let producing = p.prepared
            let stretching = p.stretching
            p.producer.request.withLock {
                $0 = ProducerRequest(generation: generation, seekFrame: Int64(frames), producing: producing, stretching: stretching)
            }
            engine.send(.flush(slot: slot, generation: generation, position: frames), in: &state)
            p.pendingSeek = (frames, state.sentCommands)
        }
    }

    /// How the sound's frames map to device frames while the player plays: a source frame
    /// and the device frame it plays at, and source frames per device frame. Nil when it is
    /// not playing, or has not played since its last seek.
    func timelineAnchor() -> (position: Double, frame: Int64, step: Double)? {
        readControl { p, state -> (Double, Int64, Double)? in
            let step = p.stretching ? p.rate : 1
            switch p.state {
            case .scheduled:
                guard let start = p.startTime else { return nil }
                let frame = Int64((min(max(start, 0), Engine.maximumDeviceTime) * Double(engine.format.sampleRate)).rounded())
                return (currentFrames(p, state), frame, step)
            case .playing:
                if let seek = p.pendingSeek, engine.mixer.appliedCommands.load(ordering: .acquiring) < seek.command { return nil }
                guard let anchor = p.voice.anchor else { return nil }
                return (anchor.position, anchor.frame, step)
            default:
                return nil
            }
        } ?? nil
    }

    // MARK: Parameters

    /// Linear gain 0…1. Setting it ramps over ~5 ms so changes never click, landing exactly.
    /// Reading it during a fade (`setVolume(_:fadeDuration:)`) gives the gain playing now;
    /// otherwise the value last set.
    package var volume: Double {
        get {
            withControl { p, _ in
                if let command = p.fadeCommand {
                    let gain = p.voice.currentGain
                    if engine.mixer.appliedCommands.load(ordering: .acquiring) < command || gain.ramping {
                        return Double(gain.value)
                    }
                    p.fadeCommand = nil
                }
                return p.volume
            } ?? 0
        }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Ramps the volume linearly from the gain playing now to `volume` over `fadeDuration`
    /// seconds, sample-accurately (0: the ~5 ms smoothing ramp). A new fade or volume change
    /// takes over from wherever the running one is, without a jump.
    package func setVolume(_ volume: Double, fadeDuration: Double) {
        guard volume.isFinite else { return }
        let v = min(1, max(0, volume))
        let isFade = fadeDuration.isFinite && fadeDuration > 0
        let frames = isFade
            ? Int32(min(Double(Int32.max), max(1, (fadeDuration * Double(engine.format.sampleRate)).rounded())))
            : Int32(engine.mixer.smoothingFrames)
        withControl { p, state in
            p.volume = v
            engine.send(.gain(slot: slot, target: Float(v), frames: frames), in: &state)
            p.fadeCommand = isFade ? state.sentCommands : nil
        }
    }

    /// Ramps the volume linearly to `volume` over `rampDuration` seconds (0: the ~5 ms
    /// smoothing ramp), starting exactly at device time `atDeviceTime` (seconds on the device
    /// timeline; at once if that time has passed). The player keeps one such scheduled ramp:
    /// a newer call replaces one that has not started yet; `setVolume` in between does not
    /// cancel it. `volume` reads the target from now on.
    /// Thread rules: any control-plane thread (serializes on the engine's lock).
    package func scheduleVolume(_ volume: Double, atDeviceTime time: Double, rampDuration: Double) {
        guard volume.isFinite else { return }
        let v = min(1, max(0, volume))
        let rate = Double(engine.format.sampleRate)
        let seconds = time.isFinite ? min(max(time, 0), Engine.maximumDeviceTime) : 0
        let frame = Int64((seconds * rate).rounded())
        let frames = rampDuration.isFinite && rampDuration > 0
            ? Int32(min(Double(Int32.max), max(1, (rampDuration * rate).rounded())))
            : Int32(engine.mixer.smoothingFrames)
        withControl { p, state in
            p.volume = v
            p.fadeCommand = nil
            engine.send(.gainAt(slot: slot, frame: frame, target: Float(v), frames: frames), in: &state)
        }
    }

    /// Stereo position −1…1 (StereoPannerNode law), ramped over ~5 ms.
    package var pan: Double {
        get { withControl { p, _ in p.pan } ?? 0 }
        set {
            guard newValue.isFinite else { return }
            let v = min(1, max(-1, newValue))
            withControl { p, state in
                p.pan = v
                engine.send(.pan(slot: slot, matrix: StereoPanner(pan: v, sourceChannels: p.soundChannels)), in: &state)
            }
        }
    }

    /// 0 plays once, n > 0 plays n + 1 times, negative loops until stopped.
    package var numberOfLoops: Int {
        get { withControl { p, _ in p.producer.numberOfLoops.load(ordering: .relaxed) } ?? 0 }
        set { withControl { p, _ in p.producer.numberOfLoops.store(newValue, ordering: .relaxed) } }
    }

    // MARK: Rate

    /// AVAudioPlayer's enableRate: must be true when the player is prepared for `rate` to
    /// work (the time-stretcher is set up at prepare; without it rate 1 costs nothing).
    /// Changing it takes effect at the next prepare.
    package var enableRate: Bool {
        get { withControl { p, _ in p.enableRate } ?? false }
        set { withControl { p, _ in p.enableRate = newValue } }
    }

    /// Playback speed 0.5…2.0 with the pitch preserved; `currentTime` advances at rate × real
    /// time. Setting it ignores values `setRate` would reject — use `setRate` for the error.
    package var rate: Double {
        get { withControl { p, _ in p.rate } ?? 1 }
        set { try? setRate(newValue) }
    }

    /// Sets the playback speed. While playing, the change starts at the next block the
    /// decode worker converts (~20 ms ahead of the output), smoothly. Throws
    /// `EngineError.invalidRate` outside 0.5…2.0 and `EngineError.rateNotEnabled` unless
    /// `enableRate` is true and was true when the player was last prepared.
    package func setRate(_ rate: Double) throws(EngineError) {
        guard rate.isFinite, TimeStretcher.tempoRange.contains(rate) else { throw .invalidRate(rate) }
        let failure: EngineError? = withControl { p, _ -> EngineError? in
            guard p.enableRate else {
                return .rateNotEnabled("rate needs enableRate: true, set before prepare")
            }
            if p.prepared && !p.stretching {
                return .rateNotEnabled("enableRate was false when the player was prepared: stop it and prepare it again to change the rate")
            }
            p.rate = rate
            p.producer.tempo.store(rate.bitPattern, ordering: .relaxed)
            return nil
        } ?? nil
        if let failure { throw failure }
    }

    // MARK: Metering

    /// Whether the player meters its output (off by default; off costs nothing).
    package var meteringEnabled: Bool {
        get { withControl { p, _ in p.meteringEnabled } ?? false }
        set {
            withControl { p, state in
                guard p.meteringEnabled != newValue else { return }
                p.meteringEnabled = newValue
                engine.send(.metering(slot: slot, enabled: newValue), in: &state)
            }
        }
    }

    /// One reading per output channel of the device: the player's own contribution after
    /// volume, pan and channel assignments, over the most recent ~50 ms (SPEC 2.2). All −160
    /// while metering is off.
    package var meterReadings: [MeterReading] {
        let channels = engine.format.channels
        return withControl { p, _ in
            guard p.meteringEnabled else { return [MeterReading](repeating: .silence, count: channels) }
            return (0..<channels).map { p.voice.meter.reading(channel: $0) }
        } ?? [MeterReading](repeating: .silence, count: channels)
    }

    /// The RMS level of output `channel` in dBFS (−160 for silence, metering off or no such channel).
    package func averagePower(forChannel channel: Int) -> Double {
        withControl { p, _ in p.meteringEnabled ? p.voice.meter.reading(channel: channel).averagePower : MeterReading.floor } ?? MeterReading.floor
    }

    /// The peak level of output `channel` in dBFS (−160 for silence, metering off or no such channel).
    package func peakPower(forChannel channel: Int) -> Double {
        withControl { p, _ in p.meteringEnabled ? p.voice.meter.reading(channel: channel).peakPower : MeterReading.floor } ?? MeterReading.floor
    }

    // MARK: Channels

    /// Output channel for each sound channel; nil for the default mapping. Setting it ignores
    /// assignments `setChannelAssignments` would reject — use that for the error.
    package var channelAssignments: [Int]? {
        get { withControl { p, _ in p.channelAssignments } ?? nil }
        set { try? setChannelAssignments(newValue) }
    }

    /// Routes each sound channel to an output channel (nil: the default mapping). Throws
    /// `EngineError.invalidChannelAssignments` unless there is one entry per sound channel
    /// and each is an output channel of the device.
    package func setChannelAssignments(_ assignments: [Int]?) throws(EngineError) {
        if let assignments {
            let channels = engine.format.channels
            guard assignments.count == numberOfChannels else {
                throw .invalidChannelAssignments(
                    "channelAssignments needs one entry per sound channel (\(numberOfChannels)), got \(assignments.count)")
            }
            guard assignments.count <= ChannelRouting.maximumChannels else {
                throw .invalidChannelAssignments(
                    "channelAssignments works for sounds of up to \(ChannelRouting.maximumChannels) channels; this one has \(numberOfChannels)")
            }
            if let bad = assignments.firstIndex(where: { $0 < 0 || $0 >= channels }) {
                throw .invalidChannelAssignments(
                    "channelAssignments[\(bad)] = \(assignments[bad]) is not an output channel (the device has \(channels): 0…\(channels - 1))")
            }
        }
        withControl { p, state in
            p.channelAssignments = assignments
            let routing = ChannelRouting.make(soundChannels: p.soundChannels, deviceChannels: engine.format.channels, assignments: assignments)
            engine.send(.routing(slot: slot, routing: routing), in: &state)
        }
    }
}
