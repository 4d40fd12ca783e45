import AudioCore
import AudioDecoding
import AudioDSP
import Synchronization

/// What the control plane asks of a player's producer: which generation to fill, from
/// which source frame, and whether to fill at all.
struct ProducerRequest: Sendable, Equatable {
    var generation: UInt32 = 0
    var seekFrame: Int64 = 0
    var producing = false
    /// Run the time-stretcher (the player was prepared with `enableRate`).
    var stretching = false
}

/// The decode side of one player: decodes, loops, resamples to the device rate (fixed
/// ratio), time-stretches (when the player was prepared with `enableRate`) and fills the
/// voice's block ring ahead of the mixer.
///
/// Each block carries the source position of its first frame and the source frames per
/// output frame (`BlockHeader.sourceStep` = tempo × source rate / device rate); the
/// stretcher's output → input mapping makes both exact across tempo changes, and a block
/// never straddles a tempo change.
///
/// Thread rules: `request`, `numberOfLoops`, `tempo` and `errorMessage` are shared
/// (Mutex/atomic); everything else belongs to the one decode worker the producer is
/// assigned to.
final class Producer: @unchecked Sendable {
    let ring: BlockRing
    let request = Mutex(ProducerRequest())
    /// AVAudioPlayer's numberOfLoops: 0 once, n > 0 n+1 times, negative forever.
    let numberOfLoops = Atomic<Int>(0)
    /// The playback rate (Double bits), picked up at the next block boundary while stretching.
    let tempo = Atomic<UInt64>(1.0.bitPattern)
    /// The decoder's error when the stream ended with an error block.
    let errorMessage = Mutex<String?>(nil)
    /// What the worker has queued: generation << 32 | ended << 31 | blocks queued in it.
    /// `prepare` waits on this, so blocks left from an earlier generation never count.
    let progress = Atomic<UInt64>(0)
    private var queuedInGeneration: UInt64 = 0

    // worker only
    private let decoder: any AudioDecoder
    private let resampler: Resampler?
    private let sourceChannels: Int
    /// Source frames per device frame before time-stretching.
    private let sourceRatio: Double
    private let deviceRate: Int
    private var stretcher: TimeStretcher?
    private var stretchError: (any Error)?
    private var upstreamEnded = false
    private let stretchBuffer: UnsafeMutablePointer<Float>
    /// Blocks queued ahead of the mixer while stretching (~100 ms) instead of the whole ring.
    let stretchAheadBlocks: Int
    /// The node timeline this producer reads, when it feeds a player node.
    private let schedule: NodeSchedule?
    private let sourceLength: Int64
    private var generation: UInt32 = 0
    private var started = false
    private var seekFrame: Int64 = 0
    private var streamFrame: Int64 = 0
    private var loopsDone = 0
    private var sourceEnded = false
    private var finished = false
    private let sourceBuffer: UnsafeMutablePointer<Float>
    private let sourceCapacity: Int
    private var sourceOffset = 0
    private var sourceFill = 0
    private var block: Int32 = -1

    init(decoder: any AudioDecoder, ring: BlockRing, deviceRate: Int) throws {
        self.decoder = decoder
        self.ring = ring
        schedule = decoder as? NodeSchedule
        let settings = decoder.settings
        sourceChannels = settings.numberOfChannels
        sourceLength = decoder.frameCount
        sourceRatio = Double(settings.sampleRate) / Double(deviceRate)
        self.deviceRate = deviceRate
        resampler = settings.sampleRate == deviceRate
            ? nil
            : try Resampler(channels: sourceChannels, inputRate: settings.sampleRate, outputRate: deviceRate)
        sourceCapacity = ring.blockFrames
        sourceBuffer = .allocate(capacity: sourceCapacity * sourceChannels)
        stretchBuffer = .allocate(capacity: ring.blockFrames * sourceChannels)
        stretchAheadBlocks = min(ring.blockCount, max(3, deviceRate / 10 / ring.blockFrames + 1))
    }

    deinit {
        sourceBuffer.deallocate()
        stretchBuffer.deallocate()
    }

    /// Blocks `prepare` waits for: what the producer keeps queued ahead.
    func blocksToPrepare(stretching: Bool) -> Int {
        schedule != nil ? 2 : stretching ? stretchAheadBlocks : 8
    }

    /// Fills up to `maximumBlocks` blocks; returns how many it queued. Worker thread only.
    func fill(maximumBlocks: Int) -> Int {
        let wanted = request.withLock { $0 }
        if !started || wanted.generation != generation {
            restart(wanted)
        }
        guard wanted.producing, !finished else { return 0 }
        var queued = 0
        while queued < maximumBlocks {
            // While stretching, stay only ~100 ms ahead so a rate change is heard soon.
            if stretcher != nil && ring.filled.count >= stretchAheadBlocks { break }
            // A node stays ~100 ms ahead, and only two blocks ahead through silence, so items
            // scheduled while it plays are rarely late.
            if let schedule {
                let ahead = schedule.isSilent(ahead: Int64(2 * ring.blockFrames)) ? 2 : stretchAheadBlocks
                if ring.filled.count >= ahead { break }
            }
            if block < 0 {
                guard let b = ring.free.pop() else { break }
                block = b
            }
            var frames = ring.blockFrames
            var step = sourceRatio
            if let stretcher {
                let t = Double(bitPattern: tempo.load(ordering: .relaxed))
                if t != stretcher.tempo { stretcher.setTempo(t) }
                if let corner = stretcher.nextCorner(afterOutputFrame: streamFrame) {
                    frames = min(frames, Int(corner - streamFrame))
                }
                step = stretcher.tempo(atOutputFrame: Double(streamFrame)) * sourceRatio
            }
            let header = UnsafeMutablePointer(ring.headers + Int(block))
            header.pointee = BlockHeader(frames: 0, flags: 0, generation: generation, streamFrame: streamFrame,
                                         sourceFrame: sourcePosition(atStream: streamFrame), sourceStep: step)
            do {
                let n = try produce(into: ring.samples(block), frames: frames)
                if n == 0 {
                    header.pointee.flags = BlockHeader.end
                    finished = true
                } else {
                    header.pointee.frames = Int32(n)
                    streamFrame += Int64(n)
                }
            } catch {
                errorMessage.withLock { $0 = String(describing: error) }
                header.pointee.flags = BlockHeader.error
                header.pointee.frames = 0
                finished = true
            }
            ring.filled.push(block)
            block = -1
            queued += 1
            queuedInGeneration += 1
            publishProgress()
            if finished { break }
        }
        return queued
    }

    private func publishProgress() {
        progress.store(UInt64(generation) << 32 | (finished ? 1 << 31 : 0) | min(queuedInGeneration, 0x7FFF_FFFF),
                       ordering: .releasing)
    }

    /// Whether `generation` has `blocks` blocks queued, or ended with fewer.
    func isReady(generation wanted: UInt32, blocks: Int) -> Bool {
        let value = progress.load(ordering: .acquiring)
        guard UInt32(truncatingIfNeeded: value >> 32) == wanted else { return false }
        return value & (1 << 31) != 0 || Int(value & 0x7FFF_FFFF) >= blocks
    }

    private func restart(_ wanted: ProducerRequest) {
        started = true
        generation = wanted.generation
        queuedInGeneration = 0
        seekFrame = max(0, min(wanted.seekFrame, sourceLength))
        streamFrame = 0
        loopsDone = 0
        sourceEnded = false
        finished = false
        sourceOffset = 0
        sourceFill = 0
        upstreamEnded = false
        try? resampler?.reset()
        setUpStretcher(wanted.stretching)
        do {
            try decoder.seek(toFrame: seekFrame)
        } catch {
            // Reported when the stream is read: the next produce throws again.
            errorMessage.withLock { $0 = String(describing: error) }
        }
        publishProgress()
    }

    /// Creates, resets or drops the time-stretcher for a restart. A player prepared without
    /// `enableRate` has none: rate 1 costs nothing.
    private func setUpStretcher(_ wanted: Bool) {
        stretchError = nil
        guard wanted else {
            stretcher = nil
            return
        }
        let t = Double(bitPattern: tempo.load(ordering: .relaxed))
        if let stretcher {
            stretcher.reset()
            stretcher.setTempo(t)
            return
        }
        do {
            stretcher = try TimeStretcher(channels: sourceChannels, sampleRate: deviceRate, tempo: t)
        } catch {
            stretchError = error
        }
    }

    /// The source frame (within one pass) that plays at `stream` frames after the start.
    private func sourcePosition(atStream stream: Int64) -> Double {
        let converted = stretcher?.inputPosition(ofOutputFrame: Double(stream)) ?? Double(stream)
        let raw = Double(seekFrame) + converted * sourceRatio
        guard sourceLength > 0 else { return raw }
        return raw.truncatingRemainder(dividingBy: Double(sourceLength))
    }

    /// Produces up to `frames` frames for the mixer; 0 only at the end of the stream.
    private func produce(into out: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        if let stretchError { throw stretchError }
        guard let stretcher else { return try produceConverted(into: out, frames: frames) }
        let ch = sourceChannels
        var produced = 0
        while produced < frames {
            let n = stretcher.receive(into: out + produced * ch, maximumFrames: frames - produced)
            produced += n
            if n > 0 { continue }
            if upstreamEnded { break }
            let m = try produceConverted(into: stretchBuffer, frames: ring.blockFrames)
            if m == 0 {
                upstreamEnded = true
                stretcher.finish()
            } else {
                stretcher.put(stretchBuffer, frames: m)
            }
        }
        return produced
    }

    /// Produces up to `frames` frames at the device rate, before time-stretching; 0 only at
    /// the end of the stream.
    private func produceConverted(into out: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let ch = sourceChannels
        guard let resampler else {
            var produced = 0
            while produced < frames {
                let n = try decodeSource(into: out + produced * ch, frames: frames - produced)
                if n == 0 { break }
                produced += n
            }
            return produced
        }
        var produced = 0
        while produced < frames {
            if sourceFill == sourceOffset && !sourceEnded {
                sourceOffset = 0
                sourceFill = try decodeSource(into: sourceBuffer, frames: sourceCapacity)
                if sourceFill == 0 { sourceEnded = true }
            }
            if sourceFill > sourceOffset {
                let r = resampler.process(input: sourceBuffer + sourceOffset * ch, inputFrames: sourceFill - sourceOffset,
                                          output: out + produced * ch, outputCapacity: frames - produced)
                sourceOffset += r.consumed
                produced += r.produced
            } else {
                let n = resampler.drain(output: out + produced * ch, capacity: frames - produced)
                if n == 0 { break }
                produced += n
            }
        }
        return produced
    }

    /// Reads source frames, starting the next loop at the end of a pass; 0 at the very end.
    private func decodeSource(into out: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        while true {
            let n = try decoder.read(into: out, frames: frames)
            if n > 0 { return n }
            let loops = numberOfLoops.load(ordering: .relaxed)
            guard loops < 0 || loopsDone < loops, sourceLength > 0 else { return 0 }
            loopsDone += 1
            try decoder.seek(toFrame: 0)
        }
    }
}
