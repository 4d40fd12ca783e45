import AudioDecoding
import AudioDSP

/// Reads one scheduled item's audio at the node's rate and channel count: a segment of a
/// decoded sound (resampled when its rate differs) or a PCM buffer already in the node's
/// format. The stream can be extended past its segment while it has not drained, so
/// consecutive segments of one sound share one decoder and one resampler (gapless).
///
/// Thread rules: created and used by the decode worker that fills the node (under the
/// schedule's lock); the control plane may extend `sourceLimit` under the same lock.
final class ItemStream {
    private let decoder: (any AudioDecoder)?
    private let pcm: [Float]
    private let resampler: Resampler?
    private let inChannels: Int
    private let outChannels: Int
    /// The next source frame to read.
    private(set) var sourcePosition: Int64
    /// Source frames are read up to here (exclusive); extending it continues the stream.
    var sourceLimit: Int64
    /// The resampler has been flushed: the stream cannot be extended any more.
    private(set) var drained = false
    /// Why reading failed (the rest of the item is silence).
    private(set) var failure: String?
    private let chunk = 1024
    private let sourceBuffer: UnsafeMutablePointer<Float>
    private let converted: UnsafeMutablePointer<Float>
    private var sourceOffset = 0
    private var sourceFill = 0

    /// A stream of `source` from `sourcePosition` to `sourceLimit`; `deviceRate` is the node's rate.
    init(source: ScheduledSource, sourcePosition: Int64, sourceLimit: Int64, outChannels: Int, nodeRate: Int) {
        self.outChannels = outChannels
        self.sourcePosition = sourcePosition
        self.sourceLimit = sourceLimit
        switch source {
        case let .sound(decoder, _):
            self.decoder = decoder
            pcm = []
            inChannels = decoder.settings.numberOfChannels
            let rate = decoder.settings.sampleRate
            resampler = rate == nodeRate ? nil : try? Resampler(channels: inChannels, inputRate: rate, outputRate: nodeRate)
            do { try decoder.seek(toFrame: sourcePosition) } catch { failure = String(describing: error) }
            if rate != nodeRate && resampler == nil { failure = "cannot resample \(rate) Hz to \(nodeRate) Hz" }
        case let .buffer(samples):
            decoder = nil
            pcm = samples
            inChannels = outChannels
            resampler = nil
        }
        sourceBuffer = .allocate(capacity: chunk * inChannels)
        converted = .allocate(capacity: chunk * inChannels)
    }

    deinit {
        sourceBuffer.deallocate()
        converted.deallocate()
    }

    /// Adds the next `frames` frames to `out` (interleaved, the node's channels). Past the
    /// end of the audio (or after a failure) it adds nothing.
    func produce(adding out: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            let n = convert(into: converted, frames: min(chunk, frames - done))
            if n == 0 { return }
            mapAdding(converted, frames: n, into: out + done * outChannels)
            done += n
        }
    }

    /// Up to `frames` frames at the node's rate, in the sound's channels; 0 at the end.
    private func convert(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        guard failure == nil else { return 0 }
        guard let resampler else { return readSource(into: out, frames: frames) }
        var produced = 0
        while produced < frames {
            if sourceOffset == sourceFill && !drained {
                sourceOffset = 0
                sourceFill = readSource(into: sourceBuffer, frames: chunk)
            }
            if sourceFill > sourceOffset {
                let r = resampler.process(input: sourceBuffer + sourceOffset * inChannels, inputFrames: sourceFill - sourceOffset,
                                          output: out + produced * inChannels, outputCapacity: frames - produced)
                sourceOffset += r.consumed
                produced += r.produced
                if r.consumed == 0 && r.produced == 0 { break }
            } else {
                drained = true
                let n = resampler.drain(output: out + produced * inChannels, capacity: frames - produced)
                if n == 0 { break }
                produced += n
            }
        }
        return produced
    }

    /// Source frames up to `sourceLimit`; 0 at the limit, at the end of the sound or on an error.
    private func readSource(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let wanted = Int(min(Int64(frames), max(0, sourceLimit - sourcePosition)))
        guard wanted > 0, failure == nil else { return 0 }
        var n = 0
        if let decoder {
            do { n = try decoder.read(into: out, frames: wanted) } catch {
                failure = String(describing: error)
                return 0
            }
        } else {
            let start = Int(sourcePosition) * inChannels
            n = min(wanted, pcm.count / inChannels - Int(sourcePosition))
            if n > 0 { pcm.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + start, count: n * inChannels) } }
        }
        sourcePosition += Int64(max(0, n))
        return max(0, n)
    }

    /// Adds `frames` frames of the sound's channels to `out` in the node's channels: equal
    /// counts copy, mono feeds every channel, a mono node takes the mean, otherwise the
    /// first channels pair up and the rest are dropped or silent.
    private func mapAdding(_ source: UnsafeMutablePointer<Float>, frames: Int, into out: UnsafeMutablePointer<Float>) {
        let ic = inChannels, oc = outChannels
        if ic == oc {
            for i in 0..<frames * oc { out[i] += source[i] }
        } else if ic == 1 {
            for f in 0..<frames {
                for c in 0..<oc { out[f * oc + c] += source[f] }
            }
        } else if oc == 1 {
            let scale = 1 / Float(ic)
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<ic { sum += source[f * ic + c] }
                out[f] += sum * scale
            }
        } else {
            let shared = min(ic, oc)
            for f in 0..<frames {
                for c in 0..<shared { out[f * oc + c] += source[f * ic + c] }
            }
        }
    }
}
