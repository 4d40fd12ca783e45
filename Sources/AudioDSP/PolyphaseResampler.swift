import Foundation

/// Fixed-ratio sample-rate conversion for the render thread: a polyphase FIR (Kaiser-windowed
/// sinc, β 10, about 100 dB of stopband) whose table is built once at creation, so
/// `process` neither allocates nor locks. The engine runs one per source rate and resamples
/// the sum of the players of that rate, instead of one libsoxr per player.
///
/// Timing is absolute: output frame `d` (counted from when the stream started) is centred
/// on input frame `d × down / up + delay` and uses the `taps` input frames around it, so a
/// caller maps device frames to input frames exactly (`inputFrame(forOutput:)`).
///
/// Thread rules: built on any thread; `process` on one thread at a time (the render thread).
package final class PolyphaseResampler: @unchecked Sendable {
    package let inputRate: Int
    package let outputRate: Int
    /// The ratio in lowest terms: `up` output frames per `down` input frames.
    package let up: Int
    package let down: Int
    /// Input frames each output frame reads (even).
    package let taps: Int
    /// Input frames between an output frame's centre and the first frame it reads, so every
    /// index is ≥ 0 from output frame 0 on.
    package var delay: Int64 { Int64(taps / 2 - 1) }
    /// `up` rows of `taps` coefficients.
    private let table: UnsafeMutablePointer<Float>
    /// The same rows with every coefficient twice (c0 c0 c1 c1 …), so a stereo frame run is
    /// one contiguous multiply-add (vectorised 8 floats at a time).
    private let stereoTable: UnsafeMutablePointer<Float>

    /// Nil when the rates are not a ratio of small integers (more than 1024 phases); the
    /// caller then converts each sound with libsoxr instead.
    package init?(inputRate: Int, outputRate: Int, baseTaps: Int = 96) {
        guard inputRate > 0, outputRate > 0, inputRate != outputRate else { return nil }
        var a = inputRate, b = outputRate
        while b != 0 { (a, b) = (b, a % b) }
        up = outputRate / a
        down = inputRate / a
        guard up <= 1024 else { return nil }
        self.inputRate = inputRate
        self.outputRate = outputRate
        // Downsampling narrows the passband to the output's Nyquist: the kernel widens with it.
        let scale = min(1, Double(up) / Double(down))
        var n = Int((Double(baseTaps) / scale).rounded(.up))
        n += (4 - n % 4) % 4  // a multiple of 4: stereo rows are whole SIMD8 vectors
        taps = n
        let cutoff = 0.5 * scale * 0.945  // cycles per input frame; the band above ~20.8 kHz of 44.1 kHz rolls off
        let beta = 10.0
        func bessel0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        let half = Double(n) / 2
        table = .allocate(capacity: up * n)
        for p in 0..<up {
            var row = [Double](repeating: 0, count: n)
            for k in 0..<n {
                // Tap k reads input frame centre − n/2 + 1 + k; its distance from the output
                // position (centre + p/up) is t.
                let t = Double(p) / Double(up) + half - 1 - Double(k)
                let x = 2 * cutoff * t
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                let r = t / half
                let window = abs(r) >= 1 ? 0 : bessel0(beta * (1 - r * r).squareRoot()) / bessel0(beta)
                row[k] = 2 * cutoff * sinc * window
            }
            let sum = row.reduce(0, +)  // unity gain at DC in every phase
            for k in 0..<n { table[p * n + k] = Float(row[k] / sum) }
        }
        stereoTable = .allocate(capacity: up * n * 2)
        for i in 0..<(up * n) {
            stereoTable[2 * i] = table[i]
            stereoTable[2 * i + 1] = table[i]
        }
    }

    deinit {
        table.deallocate()
        stereoTable.deallocate()
    }

    /// The input frame output frame `output` is centred on.
    @inline(__always)
    package func inputFrame(forOutput output: Int64) -> Int64 { output * Int64(down) / Int64(up) + delay }

    /// Input frames (from 0) that outputs before `output` need: one past the last they read.
    package func inputEnd(forOutputEnd output: Int64) -> Int64 {
        output <= 0 ? 0 : inputFrame(forOutput: output - 1) + Int64(taps / 2) + 1
    }

    /// The first input frame output `output` reads (earlier input is no longer needed).
    package func firstInput(forOutput output: Int64) -> Int64 { inputFrame(forOutput: output) - Int64(taps / 2) + 1 }

    /// Adds output frames `start ..< start + frames` to `out` (interleaved, `channels`),
    /// reading `input`, whose first frame is input frame `inputBase` (interleaved, the same
    /// channels) and which holds everything up to `inputEnd(forOutputEnd: start + frames)`.
    package func process(input: UnsafePointer<Float>, inputBase: Int64, start: Int64, frames: Int,
                         addingInto out: UnsafeMutablePointer<Float>, channels: Int) {
        let n = taps, u = Int64(up), d = Int64(down)
        var position = start * d  // output frame × down: input position × up
        for f in 0..<frames {
            let centre = position / u + delay
            let phase = Int(position % u)
            let first = Int(centre - Int64(n / 2) + 1 - inputBase)
            let coefficients = table + phase * n
            let frame = input + first * channels
            if channels == 2 {
                let c = UnsafeRawPointer(stereoTable + phase * n * 2), x = UnsafeRawPointer(frame)
                var sum = SIMD8<Float>()
                var offset = 0
                while offset < n * 8 {  // bytes of n stereo frames
                    sum += c.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                        * x.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                    offset += 32
                }
                out[2 * f] += sum[0] + sum[2] + sum[4] + sum[6]
                out[2 * f + 1] += sum[1] + sum[3] + sum[5] + sum[7]
            } else {
                for ch in 0..<channels {
                    var sum: Float = 0
                    for k in 0..<n { sum += coefficients[k] * frame[k * channels + ch] }
                    out[f * channels + ch] += sum
                }
            }
            position += d
        }
    }
}
