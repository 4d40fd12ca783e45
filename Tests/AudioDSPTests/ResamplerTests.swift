import AudioDSP
import Testing
import TestSupport

/// Runs `input` through a fresh resampler in `chunk`-frame pieces, then drains it.
private func resample(_ input: [Float], channels: Int, from inputRate: Int, to outputRate: Int,
                      chunk: Int = 1000, resampler existing: Resampler? = nil) throws -> [Float] {
    let r = try existing ?? Resampler(channels: channels, inputRate: inputRate, outputRate: outputRate)
    let inputFrames = input.count / channels
    let capacity = 4096
    var block = [Float](repeating: 0, count: capacity * channels)
    var out: [Float] = []
    var offset = 0
    while offset < inputFrames {
        let n = min(chunk, inputFrames - offset)
        var fed = 0
        while fed < n {
            let (consumed, produced) = input.withUnsafeBufferPointer { inp in
                block.withUnsafeMutableBufferPointer { o in
                    r.process(input: inp.baseAddress! + (offset + fed) * channels, inputFrames: n - fed,
                              output: o.baseAddress!, outputCapacity: capacity)
                }
            }
            out.append(contentsOf: block[0..<produced * channels])
            fed += consumed
            if consumed == 0 && produced == 0 { Issue.record("resampler made no progress"); return out }
        }
        offset += n
    }
    while true {
        let produced = block.withUnsafeMutableBufferPointer { r.drain(output: $0.baseAddress!, capacity: capacity) }
        if produced == 0 { break }
        out.append(contentsOf: block[0..<produced * channels])
    }
    return out
}

/// The frame of the largest absolute sample on channel 0.
private func peakFrame(_ samples: [Float], channels: Int) -> Int {
    var best = 0
    var bestValue: Float = -1
    for f in 0..<(samples.count / channels) where abs(samples[f * channels]) > bestValue {
        bestValue = abs(samples[f * channels])
        best = f
    }
    return best
}

@Suite("Resampler (libsoxr, fixed ratio, HQ)")
struct ResamplerTests {
    @Test("44.1 → 48 kHz keeps a 1 kHz sine at 1 kHz, and the length is input × ratio after drain")
    func sineUp() throws {
        let input = Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 1, sampleRate: 44100, channels: 2)
        let out = try resample(input, channels: 2, from: 44100, to: 48000)
        let frames = out.count / 2
        #expect(abs(frames - 48000) <= 2, "got \(frames) frames")
        for channel in 0..<2 {
            let f = Measure.frequency(out, channels: 2, channel: channel, frames: 4800..<43200, sampleRate: 48000)
            #expect(abs(f - 1000) < 0.5, "channel \(channel): \(f) Hz")
        }
        let level = Measure.rms(out, channels: 2, channel: 0, frames: 4800..<43200)
        #expect(abs(level - 0.5 / 2.0.squareRoot()) < 0.005, "rms \(level)")
    }

    @Test("48 → 44.1 kHz: frequency and length", arguments: [1, 3])
    func sineDown(channels: Int) throws {
        let input = Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 0.5, sampleRate: 48000, channels: channels)
        let out = try resample(input, channels: channels, from: 48000, to: 44100, chunk: 333)
        #expect(abs(out.count / channels - 22050) <= 2)
        let f = Measure.frequency(out, channels: channels, channel: channels - 1, frames: 2000..<20000, sampleRate: 44100)
        #expect(abs(f - 1000) < 0.5, "\(f) Hz")
    }

    @Test("Output is delay-compensated: a click at input frame n comes out at round(n × out/in) ± 1",
          arguments: [(44100, 48000, 10000), (48000, 44100, 12345), (22050, 48000, 777), (96000, 48000, 30001)])
    func clickPosition(inputRate: Int, outputRate: Int, clickFrame: Int) throws {
        let input = Signals.click(at: clickFrame, frames: inputRate / 2, channels: 2)
        let out = try resample(input, channels: 2, from: inputRate, to: outputRate, chunk: 512)
        let expected = Int((Double(clickFrame) * Double(outputRate) / Double(inputRate)).rounded())
        let found = peakFrame(out, channels: 2)
        #expect(abs(found - expected) <= 1, "click expected at \(expected), found at \(found)")
        let expectedLength = Int((Double(inputRate / 2) * Double(outputRate) / Double(inputRate)).rounded())
        #expect(abs(out.count / 2 - expectedLength) <= 2)
    }

    @Test("reset() restarts cleanly: a signal after a reset comes out as from a fresh resampler")
    func resetRestarts() throws {
        let r = try Resampler(channels: 1, inputRate: 44100, outputRate: 48000)
        // Half-process something unrelated, then reset (as after a seek).
        let noise = Signals.noise(frames: 5000)
        var scratch = [Float](repeating: 0, count: 8000)
        _ = noise.withUnsafeBufferPointer { i in
            scratch.withUnsafeMutableBufferPointer { o in
                r.process(input: i.baseAddress!, inputFrames: 5000, output: o.baseAddress!, outputCapacity: 8000)
            }
        }
        try r.reset()
        let click = Signals.click(at: 4410, frames: 22050)
        let afterReset = try resample(click, channels: 1, from: 44100, to: 48000, resampler: r)
        let fresh = try resample(click, channels: 1, from: 44100, to: 48000)
        #expect(afterReset.count == fresh.count)
        #expect(peakFrame(afterReset, channels: 1) == peakFrame(fresh, channels: 1))
        let maxDifference = zip(afterReset, fresh).map { abs($0 - $1) }.max() ?? 1
        #expect(maxDifference < 1e-6)
    }

    @Test("Invalid configurations throw SoxrError with the operation")
    func invalid() {
        #expect(throws: SoxrError.self) { try Resampler(channels: 0, inputRate: 44100, outputRate: 48000) }
        do {
            _ = try Resampler(channels: 2, inputRate: -1, outputRate: 48000)
            Issue.record("a negative rate was accepted")
        } catch let error as SoxrError {
            #expect(error.operation.contains("soxr_create"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
