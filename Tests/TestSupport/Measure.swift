import Foundation

/// Measurements on rendered interleaved audio.
package enum Measure {
    /// One channel of interleaved samples.
    package static func channel(_ samples: [Float], channels: Int, _ channel: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// The first frame whose absolute value on `channel` reaches `threshold`, or nil.
    package static func onset(_ samples: [Float], channels: Int, channel: Int = 0, threshold: Float = 0.25, from startFrame: Int = 0) -> Int? {
        var f = startFrame
        while f * channels + channel < samples.count {
            if abs(samples[f * channels + channel]) >= threshold { return f }
            f += 1
        }
        return nil
    }

    /// All onsets on `channel` at least `minimumGap` frames apart.
    package static func onsets(_ samples: [Float], channels: Int, channel: Int = 0, threshold: Float = 0.25, minimumGap: Int = 100) -> [Int] {
        var result: [Int] = []
        var f = 0
        while let o = onset(samples, channels: channels, channel: channel, threshold: threshold, from: f) {
            result.append(o)
            f = o + minimumGap
        }
        return result
    }

    /// Peak absolute value of `channel` over frames `range`.
    package static func peak(_ samples: [Float], channels: Int, channel: Int, frames range: Range<Int>) -> Float {
        var p: Float = 0
        for f in range where f * channels + channel < samples.count { p = max(p, abs(samples[f * channels + channel])) }
        return p
    }

    /// RMS of `channel` over frames `range`.
    package static func rms(_ samples: [Float], channels: Int, channel: Int, frames range: Range<Int>) -> Double {
        var sum = 0.0
        var n = 0
        for f in range where f * channels + channel < samples.count {
            let v = Double(samples[f * channels + channel])
            sum += v * v
            n += 1
        }
        return n == 0 ? 0 : (sum / Double(n)).squareRoot()
    }

    /// 20·log10(x), floored at −160.
    package static func dB(_ x: Double) -> Double { x <= 1e-8 ? -160 : 20 * log10(x) }

    /// The dominant frequency of `channel` over `range`, from zero crossings (for pure tones).
    package static func frequency(_ samples: [Float], channels: Int, channel: Int, frames range: Range<Int>, sampleRate: Int) -> Double {
        var crossings: [Double] = []
        var previous = samples[range.lowerBound * channels + channel]
        for f in (range.lowerBound + 1)..<range.upperBound {
            let v = samples[f * channels + channel]
            if previous < 0 && v >= 0 {
                crossings.append(Double(f - 1) + Double(-previous / (v - previous)))
            }
            previous = v
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * Double(sampleRate)
    }
}
