import Foundation
import Synchronization

/// Level meter for one player's output (SPEC 2.2): per channel, the RMS (`averagePower`) and
/// the peak (`peakPower`) in dBFS over the most recent ~50 ms.
///
/// The window is five 10 ms slices: the render thread adds each sample's square and
/// absolute value to the current slice; when a slice completes, the five latest slices are
/// combined and published (so readings are at most 10 ms old and cover 50 ms). All state is
/// allocated up front; publishing is one atomic store per channel of two Float bit patterns.
///
/// Thread rules: `process`, `processSilence`, `reset` and `isEnabled` belong to the render
/// thread (after creation); `reading(channel:)` is for any thread.
package final class Meter: @unchecked Sendable {
    package let channels: Int
    /// Frames per slice (10 ms).
    package let sliceFrames: Int
    package static let slices = 5
    /// Render thread: whether `process` does anything. When false the meter costs nothing.
    package var isEnabled = false

    // render: per channel: current slice sum of squares and peak, then `slices` finished sums and peaks.
    private let sums: UnsafeMutablePointer<Float>
    private let peaks: UnsafeMutablePointer<Float>
    private let sliceSums: UnsafeMutablePointer<Float>
    private let slicePeaks: UnsafeMutablePointer<Float>
    private var sliceFilled = 0
    private var sliceIndex = 0
    /// Slices finished since the last reset (up to `slices`), so a fresh meter averages what it has.
    private var slicesFilled = 0
    /// Published per channel: average dB bits in the high 32 bits, peak dB bits in the low 32.
    private let published: UnsafeMutablePointer<Atomic<UInt64>>

    package init(channels: Int, sampleRate: Int) {
        self.channels = max(1, channels)
        sliceFrames = max(1, sampleRate / 100)
        let n = self.channels
        sums = .allocate(capacity: n)
        peaks = .allocate(capacity: n)
        sliceSums = .allocate(capacity: n * Meter.slices)
        slicePeaks = .allocate(capacity: n * Meter.slices)
        published = .allocate(capacity: n)
        for c in 0..<n { (published + c).initialize(to: Atomic(Meter.pack(.silence))) }
        clear()
    }

    deinit {
        sums.deallocate()
        peaks.deallocate()
        sliceSums.deallocate()
        slicePeaks.deallocate()
        published.deinitialize(count: channels)
        published.deallocate()
    }

    /// Render thread: forgets the history and publishes silence.
    package func reset() {
        clear()
        for c in 0..<channels { published[c].store(Meter.pack(.silence), ordering: .relaxed) }
    }

    private func clear() {
        sums.initialize(repeating: 0, count: channels)
        peaks.initialize(repeating: 0, count: channels)
        sliceSums.initialize(repeating: 0, count: channels * Meter.slices)
        slicePeaks.initialize(repeating: 0, count: channels * Meter.slices)
        sliceFilled = 0
        sliceIndex = 0
        slicesFilled = 0
    }

    /// Render thread: meters `frames` interleaved frames of `channels` channels.
    package func process(_ samples: UnsafePointer<Float>, frames: Int) {
        guard isEnabled else { return }
        let ch = channels
        var f = 0
        while f < frames {
            let n = min(frames - f, sliceFrames - sliceFilled)
            if 4 % ch == 0 {
                accumulateVectorized(samples + f * ch, count: n * ch)
            } else {
                accumulate(samples + f * ch, frames: n)
            }
            f += n
            sliceFilled += n
            if sliceFilled == sliceFrames { finishSlice() }
        }
    }

    /// 1, 2 or 4 channels: eight samples per step in two SIMD4 accumulators (lane k is
    /// channel k % channels), so the sums do not wait on each other. The peak is tracked as
    /// the largest square (a compare and a blend; stdlib's `pointwiseMax` is not inlined).
    @inline(__always)
    private func accumulateVectorized(_ samples: UnsafePointer<Float>, count: Int) {
        let ch = channels
        var sumA = SIMD4<Float>(), sumB = SIMD4<Float>()
        var peakA = SIMD4<Float>(), peakB = SIMD4<Float>()
        let raw = UnsafeRawPointer(samples)
        var i = 0
        while i + 8 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD4<Float>.self)
            let b = raw.loadUnaligned(fromByteOffset: i * 4 + 16, as: SIMD4<Float>.self)
            let a2 = a * a, b2 = b * b
            sumA += a2
            sumB += b2
            peakA.replace(with: a2, where: a2 .> peakA)
            peakB.replace(with: b2, where: b2 .> peakB)
            i += 8
        }
        let sum = sumA + sumB
        for lane in 0..<4 {
            let c = lane % ch
            sums[c] += sum[lane]
            peaks[c] = max(peaks[c], max(peakA[lane], peakB[lane]).squareRoot())
        }
        while i < count {  // the rest, sample by sample (i stays a multiple of ch)
            let v = samples[i]
            let c = i % ch
            sums[c] += v * v
            peaks[c] = max(peaks[c], abs(v))
            i += 1
        }
    }

    /// Any channel count: one strided pass per channel.
    @inline(__always)
    private func accumulate(_ samples: UnsafePointer<Float>, frames n: Int) {
        let ch = channels
        for c in 0..<ch {
            var sum = sums[c]
            var peak = peaks[c]
            var p = samples + c
            for _ in 0..<n {
                let v = p.pointee
                sum += v * v
                peak = max(peak, abs(v))
                p += ch
            }
            sums[c] = sum
            peaks[c] = peak
        }
    }

    /// Render thread: meters `frames` frames of silence (no per-sample work).
    package func processSilence(frames: Int) {
        guard isEnabled else { return }
        var f = 0
        while f < frames {
            let n = min(frames - f, sliceFrames - sliceFilled)
            f += n
            sliceFilled += n
            if sliceFilled == sliceFrames { finishSlice() }
        }
    }

    private func finishSlice() {
        let ch = channels
        for c in 0..<ch {
            sliceSums[sliceIndex * ch + c] = sums[c]
            slicePeaks[sliceIndex * ch + c] = peaks[c]
            sums[c] = 0
            peaks[c] = 0
        }
        sliceFilled = 0
        sliceIndex = (sliceIndex + 1) % Meter.slices
        slicesFilled = min(Meter.slices, slicesFilled + 1)
        let frames = Float(slicesFilled * sliceFrames)
        for c in 0..<ch {
            var sum: Float = 0
            var peak: Float = 0
            for s in 0..<Meter.slices {
                sum += sliceSums[s * ch + c]
                peak = max(peak, slicePeaks[s * ch + c])
            }
            let average = Meter.decibels(power: sum / frames)
            let peakDB = Meter.decibels(power: peak * peak)
            published[c].store(UInt64(average.bitPattern) << 32 | UInt64(peakDB.bitPattern), ordering: .relaxed)
        }
    }

    /// 10·log10(power), floored at −160 dB.
    @inline(__always)
    private static func decibels(power: Float) -> Float {
        power <= 1e-16 ? -160 : max(-160, 10 * log10f(power))
    }

    private static func pack(_ r: MeterReading) -> UInt64 {
        UInt64(Float(r.averagePower).bitPattern) << 32 | UInt64(Float(r.peakPower).bitPattern)
    }

    /// Any thread: the latest published values of `channel` (silence for a channel it lacks).
    package func reading(channel: Int) -> MeterReading {
        guard channel >= 0 && channel < channels else { return .silence }
        let bits = published[channel].load(ordering: .relaxed)
        return MeterReading(averagePower: Double(Float(bitPattern: UInt32(bits >> 32))),
                            peakPower: Double(Float(bitPattern: UInt32(bits & 0xFFFF_FFFF))))
    }
}
