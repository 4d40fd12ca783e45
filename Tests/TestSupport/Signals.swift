import Foundation

/// Test signals as interleaved Float32 samples.
package enum Signals {
    /// A sine of `frequency` Hz and peak `amplitude`, the same on every channel.
    package static func sine(frequency: Double, amplitude: Double = 1, seconds: Double, sampleRate: Int, channels: Int = 1) -> [Float] {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amplitude * sin(2 * .pi * frequency * Double(i) / Double(sampleRate)))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    /// Silence with a single full-scale click (one sample of `amplitude`) at `clickFrame`.
    package static func click(at clickFrame: Int, frames: Int, channels: Int = 1, amplitude: Float = 1) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for c in 0..<channels { out[clickFrame * channels + c] = amplitude }
        return out
    }

    /// Deterministic white noise in −amplitude…amplitude.
    package static func noise(frames: Int, channels: Int = 1, amplitude: Float = 0.5, seed: UInt64 = 42) -> [Float] {
        var state = seed
        var out = [Float](repeating: 0, count: frames * channels)
        for i in out.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out[i] = (Float(state >> 40) / Float(1 << 24) * 2 - 1) * amplitude
        }
        return out
    }
}
