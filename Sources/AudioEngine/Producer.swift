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
}

/// The decode side of one player: decodes, loops, resamples to the device rate and fills
/// the voice's block ring ahead of the mixer.
///
/// Thread rules: `request`, `numberOfLoops` and `errorMessage` are shared (Mutex/atomic);
/// everything else belongs to the one decode worker the producer is assigned to.
final class Producer: @unchecked Sendable {
    let ring: BlockRing
    let request = Mutex(ProducerRequest())
    /// AVAudioPlayer's numberOfLoops: 0 once, n > 0 n+1 times, negative forever.
    let numberOfLoops = Atomic<Int>(0)
    /// The decoder's error when the stream ended with an error block.
    let errorMessage = Mutex<String?>(nil)

    // worker only
    private let decoder: any AudioDecoder
    private let resampler: Resampler?
    private let sourceChannels: Int
    private let sourceStep: Double
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
        let settings = decoder.settings
        sourceChannels = settings.numberOfChannels
        sourceLength = decoder.frameCount
        sourceStep = Double(settings.sampleRate) / Double(deviceRate)
        resampler = settings.sampleRate == deviceRate
            ? nil
            : try Resampler(channels: sourceChannels, inputRate: settings.sampleRate, outputRate: deviceRate)
        sourceCapacity = ring.blockFrames
        sourceBuffer = .allocate(capacity: sourceCapacity * sourceChannels)
    }

    deinit { sourceBuffer.deallocate() }

    /// Fills up to `maximumBlocks` blocks; returns how many it queued. Worker thread only.
    func fill(maximumBlocks: Int) -> Int {
        let wanted = request.withLock { $0 }
        if !started || wanted.generation != generation {
            restart(wanted)
        }
        guard wanted.producing, !finished else { return 0 }
        var queued = 0
        while queued < maximumBlocks {
            if block < 0 {
                guard let b = ring.free.pop() else { break }
                block = b
            }
            let header = UnsafeMutablePointer(ring.headers + Int(block))
            header.pointee = BlockHeader(frames: 0, flags: 0, generation: generation, streamFrame: streamFrame,
                                         sourceFrame: sourcePosition(atStream: streamFrame), sourceStep: sourceStep)
            do {
                let n = try produce(into: ring.samples(block), frames: ring.blockFrames)
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
            if finished { break }
        }
        return queued
    }

    private func restart(_ wanted: ProducerRequest) {
        started = true
        generation = wanted.generation
        seekFrame = max(0, min(wanted.seekFrame, sourceLength))
        streamFrame = 0
        loopsDone = 0
        sourceEnded = false
        finished = false
        sourceOffset = 0
        sourceFill = 0
        try? resampler?.reset()
        do {
            try decoder.seek(toFrame: seekFrame)
        } catch {
            // Reported when the stream is read: the next produce throws again.
            errorMessage.withLock { $0 = String(describing: error) }
        }
    }

    /// The source frame (within one pass) that plays at `stream` frames after the start.
    private func sourcePosition(atStream stream: Int64) -> Double {
        let raw = Double(seekFrame) + Double(stream) * sourceStep
        guard sourceLength > 0 else { return raw }
        return raw.truncatingRemainder(dividingBy: Double(sourceLength))
    }

    /// Produces up to `frames` frames at the device rate; 0 only at the end of the stream.
    private func produce(into out: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
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
