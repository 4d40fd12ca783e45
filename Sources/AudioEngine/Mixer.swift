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
    /// Resample buses by index (see `ResampleBus`); filled by `addBus` commands.
    private let buses: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var busCount = 0
    static let maximumBuses = 16

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
        buses = .allocate(capacity: Mixer.maximumBuses)
        buses.initialize(repeating: nil, count: Mixer.maximumBuses)
    }

    deinit {
        for i in 0..<slotCapacity {
            if let p = slots[i] { Unmanaged<Voice>.fromOpaque(p).release() }
        }
        while let p = retired.pop() { Unmanaged<Voice>.fromOpaque(p).release() }
        for i in 0..<Mixer.maximumBuses {
            if let p = buses[i] { Unmanaged<ResampleBus>.fromOpaque(p).release() }
        }
        buffer.deallocate()
        slots.deallocate()
        buses.deallocate()
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
        let end = now + Int64(frames)
        var b = 0
        while b < busCount {
            bus(b)?.prepare(outputEnd: end)
            b += 1
        }
        var active = false
        var i = 0
        while i < slotEnd {
            if let p = slots[i] {
                let voice = Unmanaged<Voice>.fromOpaque(p).takeUnretainedValue()
                if voice.bus >= 0, let bus = bus(voice.bus) {
                    voice.positionLead = bus.cycleLead
                    voice.render(into: bus.cycleInto, frames: bus.cycleFrames, outChannels: channels, now: bus.cycleStart,
                                 waitForData: waitForData)
                } else {
                    voice.render(into: buffer, frames: frames, outChannels: channels, now: now, waitForData: waitForData)
                }
                voice.publishGain()
                if voice.isActive { active = true }
            }
            i += 1
        }
        b = 0
        while b < busCount {
            bus(b)?.resample(start: now, frames: frames, addingInto: buffer)
            b += 1
        }
        timeline = active ? now + Int64(frames) : 0
        if !active {
            b = 0
            while b < busCount {
                bus(b)?.reset()
                b += 1
            }
        }
        nextFrame.store(timeline, ordering: .releasing)
        cycles.add(1, ordering: .relaxed)
        var w = 0
        while w < workers.count {
            workers[w].wake()
            w += 1
        }
    }

    /// Resample bus `index`, if it has been added.
    @inline(__always)
    private func bus(_ index: Int) -> ResampleBus? {
        buses[index].map { Unmanaged<ResampleBus>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A command for a bused voice, with its device frames and lengths turned into the bus's.
    private func converted(_ command: EngineCommand, for bus: ResampleBus) -> EngineCommand {
        switch command {
        case let .play(slot, start) where start >= 0:
            .play(slot: slot, startFrame: bus.busFrame(start))
        case let .gain(slot, target, frames):
            .gain(slot: slot, target: target, frames: Int32(clamping: bus.busFrames(Int(frames))))
        case let .gainAt(slot, frame, target, frames):
            .gainAt(slot: slot, frame: bus.busFrame(frame), target: target, frames: Int32(clamping: bus.busFrames(Int(frames))))
        default:
            command
        }
    }

    private func apply(_ command: EngineCommand, now: Int64) {
        switch command {
        case let .addBus(index, bus):
            buses[Int(index)] = bus
            busCount = max(busCount, Int(index) + 1)
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
                let voice = Unmanaged<Voice>.fromOpaque(p).takeUnretainedValue()
                if voice.bus >= 0, let bus = bus(voice.bus) {
                    voice.apply(converted(command, for: bus), now: bus.rendered, smoothingFrames: bus.smoothingFrames)
                } else {
                    voice.apply(command, now: now, smoothingFrames: smoothingFrames)
                }
            }
        }
    }
}
