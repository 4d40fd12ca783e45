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

    package var state: PlayerState { withControl { p, _ in p.state } ?? .stopped }
    package var isPlaying: Bool { state == .playing || state == .scheduled }
    /// Device time of the pending or last scheduled start.
    package var startTime: Double? { withControl { p, _ in p.startTime } ?? nil }

    // MARK: Transport

    /// Preloads audio so `play` starts at once; true when audio is ready.
    @discardableResult
    package func prepare() -> Bool {
        let ring: BlockRing? = withControl { p, state in
            if p.prepared { return nil }
            let position = currentFrames(p, state)
            p.generation &+= 1
            let generation = p.generation
            p.producer.request.withLock { $0 = ProducerRequest(generation: generation, seekFrame: Int64(position.rounded(.down)), producing: true) }
            engine.send(.flush(slot: slot, generation: generation, position: position.rounded(.down)), in: &state)
            p.pendingSeek = (position.rounded(.down), state.sentCommands)
            p.prepared = true
            if p.state == .idle || p.state == .stopped || p.state == .finished { p.state = .prepared }
            return p.voice.ring
        } ?? nil
        guard let ring else { return withControl { p, _ in p.prepared } ?? false }
        let wanted = min(8, ring.blockCount - 1)
        _ = engine.waitForAudio(ring, blocks: wanted, timeout: 3)
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
            let frames = max(0, min(Double(frameCount), (seconds * sampleRate).rounded()))
            p.generation &+= 1
            let generation = p.generation
            let producing = p.prepared
            p.producer.request.withLock { $0 = ProducerRequest(generation: generation, seekFrame: Int64(frames), producing: producing) }
            engine.send(.flush(slot: slot, generation: generation, position: frames), in: &state)
            p.pendingSeek = (frames, state.sentCommands)
        }
    }

    // MARK: Parameters

    /// Linear gain 0…1, ramped over ~5 ms so changes never click, landing exactly.
    package var volume: Double {
        get { withControl { p, _ in p.volume } ?? 0 }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Ramps the volume to `volume` over `fadeDuration` seconds, sample-accurately.
    package func setVolume(_ volume: Double, fadeDuration: Double) {
        let v = min(1, max(0, volume))
        let frames = fadeDuration > 0 ? Int32(fadeDuration * Double(engine.format.sampleRate)) : Int32(engine.mixer.smoothingFrames)
        withControl { p, state in
            p.volume = v
            engine.send(.gain(slot: slot, target: Float(v), frames: frames), in: &state)
        }
    }

    /// Stereo position −1…1 (StereoPannerNode law).
    package var pan: Double {
        get { withControl { p, _ in p.pan } ?? 0 }
        set {
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

    /// Output channel for each sound channel; nil for the default mapping.
    package var channelAssignments: [Int]? {
        get { withControl { p, _ in p.channelAssignments } ?? nil }
        set {
            withControl { p, state in
                p.channelAssignments = newValue
                let routing = ChannelRouting.make(soundChannels: p.soundChannels, deviceChannels: engine.format.channels, assignments: newValue)
                engine.send(.routing(slot: slot, routing: routing), in: &state)
            }
        }
    }
}
