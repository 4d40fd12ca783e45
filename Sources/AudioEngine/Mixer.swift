import AudioCore
import Synchronization

/// The render cycle: applies queued commands, mixes every attached voice into one
/// period at the device format, and advances the device timeline (SPEC 2.1).
///
/// Thread rules: `cycle` runs on the render thread only (or, in offline mode, on the one
/// thread calling `Engine.render`): no allocation, no locks. `commands` has one producer,
/// the control plane under the engine's lock; `retired` is drained by the monitor.
final class Mixer: @unchecked Sendable {
    let format: AudioFormat
    let periodFrames: Int
    let smoothingFrames: Int
    let commands: SPSCQueue<EngineCommand>
    let retired: SPSCQueue<UnsafeMutableRawPointer>
    let buffer: UnsafeMutablePointer<Float>
    private let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let slotCapacity: Int
    private var slotEnd = 0
    private var timeline: Int64 = 0
    private let workers: [DecodeWorker]

    /// The device frame the next cycle renders (0 while nothing plays or is paused).
    let nextFrame = Atomic<Int64>(0)
    /// Commands applied so far.
    let appliedCommands = Atomic<Int>(0)
    /// Cycles rendered so far.
    let cycles = Atomic<Int>(0)

    init(format: AudioFormat, periodFrames: Int, maximumVoices: Int, workers: [DecodeWorker]) {
        self.format = format
        self.periodFrames = periodFrames
        smoothingFrames = max(1, format.sampleRate / 200)  // 5 ms
        commands = SPSCQueue(minimumCapacity: 4096)
        retired = SPSCQueue(minimumCapacity: maximumVoices * 2)
        buffer = .allocate(capacity: periodFrames * format.channels)
        buffer.initialize(repeating: 0, count: periodFrames * format.channels)
        slots = .allocate(capacity: maximumVoices)
        slots.initialize(repeating: nil, count: maximumVoices)
        slotCapacity = maximumVoices
        self.workers = workers
    }

    deinit {
        for i in 0..<slotCapacity {
            if let p = slots[i] { Unmanaged<Voice>.fromOpaque(p).release() }
        }
        while let p = retired.pop() { Unmanaged<Voice>.fromOpaque(p).release() }
        buffer.deallocate()
        slots.deallocate()
    }

    /// Renders `frames` (at most a period; a whole one in real time) into `buffer`.
    /// `waitForData` makes missing audio be waited for (offline).
    func cycle(frames: Int, waitForData: PosixSemaphore?) {
        let now = timeline
        var applied = 0
        while let command = commands.pop() {
            apply(command, now: now)
            applied += 1
        }
        if applied > 0 { appliedCommands.add(applied, ordering: .releasing) }

        let channels = format.channels
        buffer.update(repeating: 0, count: frames * channels)
        var active = false
        var i = 0
        while i < slotEnd {
            if let p = slots[i] {
                let voice = Unmanaged<Voice>.fromOpaque(p).takeUnretainedValue()
                voice.render(into: buffer, frames: frames, outChannels: channels, now: now, waitForData: waitForData)
                voice.publishGain()
                if voice.isActive { active = true }
            }
            i += 1
        }
        timeline = active ? now + Int64(frames) : 0
        nextFrame.store(timeline, ordering: .releasing)
        cycles.add(1, ordering: .relaxed)
        var w = 0
        while w < workers.count {
            workers[w].wake()
            w += 1
        }
    }

    private func apply(_ command: EngineCommand, now: Int64) {
        switch command {
        case let .attach(slot, voice):
            slots[Int(slot)] = voice
            slotEnd = max(slotEnd, Int(slot) + 1)
        case let .detach(slot):
            if let p = slots[Int(slot)] {
                slots[Int(slot)] = nil
                retired.push(p)
            }
            while slotEnd > 0 && slots[slotEnd - 1] == nil { slotEnd -= 1 }
        case let .play(slot, _), let .pause(slot), let .stop(slot), let .flush(slot, _, _),
             let .gain(slot, _, _), let .gainAt(slot, _, _, _), let .pan(slot, _), let .routing(slot, _), let .metering(slot, _):
            if let p = slots[Int(slot)] {
                Unmanaged<Voice>.fromOpaque(p).takeUnretainedValue().apply(command, now: now, smoothingFrames: smoothingFrames)
            }
        }
    }
}
