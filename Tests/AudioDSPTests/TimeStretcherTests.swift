import AudioDSP
import Foundation
import Testing
import TestSupport

/// What a stretched run gives: the output, and per received piece (first output frame,
/// its input position, tempo), the way the producer stamps blocks.
private struct Stretched {
    var samples: [Float] = []
    var pieces: [(output: Int, input: Double, tempo: Double)] = []

    /// The input position of output frame `frame`, from the piece it belongs to.
    func input(ofOutput frame: Int) -> Double {
        let p = pieces.last { $0.output <= frame }!
        return p.input + Double(frame - p.output) * p.tempo
    }
}

/// Runs `input` through `stretcher` in `chunk`-frame pieces, calling `change` before each
/// piece (for tempo changes), then finishes it. Pieces never straddle a tempo corner.
private func stretch(_ input: [Float], _ stretcher: TimeStretcher, chunk: Int = 1024,
                     change: (Int) -> Void = { _ in }) -> Stretched {
    let ch = stretcher.channels
    var result = Stretched()
    var block = [Float](repeating: 0, count: 4096 * ch)
    func drain() {
        while true {
            let start = stretcher.outputFrames
            var room = 4096
            if let corner = stretcher.nextCorner(afterOutputFrame: start) { room = min(room, Int(corner - start)) }
            let input = stretcher.inputPosition(ofOutputFrame: Double(start))
            let tempo = stretcher.tempo(atOutputFrame: Double(start))
            let n = block.withUnsafeMutableBufferPointer { stretcher.receive(into: $0.baseAddress!, maximumFrames: room) }
            if n == 0 { break }
            result.pieces.append((Int(start), input, tempo))
            result.samples.append(contentsOf: block[0..<(n * ch)])
        }
    }
    var offset = 0
    let frames = input.count / ch
    while offset < frames {
        change(offset)
        let n = min(chunk, frames - offset)
        input.withUnsafeBufferPointer { stretcher.put($0.baseAddress! + offset * ch, frames: n) }
        offset += n
        drain()
    }
    stretcher.finish()
    drain()
    return result
}

/// A 1 kHz burst of `burst` frames every `spacing` frames, silence between.
private func bursts(frames: Int, spacing: Int, burst: Int = 480, rate: Int = 48_000) -> [Float] {
    var out = [Float](repeating: 0, count: frames)
    for start in stride(from: spacing / 2, to: frames - burst, by: spacing) {
        for i in 0..<burst { out[start + i] = Float(0.8 * sin(2 * Double.pi * 1000 * Double(i) / Double(rate))) }
    }
    return out
}

@Suite struct TimeStretcherTests {
    @Test(arguments: [0.5, 0.8, 1.0, 1.25, 1.5, 2.0])
    func lengthIsInputOverTempoExactly(tempo: Double) throws {
        let s = try TimeStretcher(channels: 1, sampleRate: 48_000, tempo: tempo)
        let input = Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 3, sampleRate: 48_000)
        let run = stretch(input, s)
        let out = run.samples
        #expect(out.count == Int((Double(input.count) / tempo).rounded()))
    }

    @Test(arguments: [0.5, 2.0])
    func pitchIsKept(tempo: Double) throws {
        let s = try TimeStretcher(channels: 2, sampleRate: 48_000, tempo: tempo)
        let input = Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 2)
        let run = stretch(input, s)
        let out = run.samples
        let frames = out.count / 2
        let f = Measure.frequency(out, channels: 2, channel: 1, frames: (frames / 4)..<(3 * frames / 4), sampleRate: 48_000)
        #expect(abs(f - 1000) < 10, "measured \(f) Hz")
    }

    /// The mapping from output to input follows the audio: each burst onset comes out within
    /// WSOLA's reach of where the mapping puts it (a sequence plays at 1× inside itself, so
    /// the spread grows with |1 − tempo|), and the error does not grow over 20 s.
    @Test(arguments: [0.5, 0.75, 1.0, 1.25, 1.5, 2.0])
    func mappedPositionsFollowTheAudio(tempo: Double) throws {
        let s = try TimeStretcher(channels: 1, sampleRate: 48_000, tempo: tempo)
        let spacing = 24_000
        let input = bursts(frames: 48_000 * 20, spacing: spacing, burst: 4800)
        let run = stretch(input, s)
        let out = run.samples
        let inputOnsets = Measure.onsets(input, channels: 1, threshold: 0.3, minimumGap: 12_000)
        let outputOnsets = Measure.onsets(out, channels: 1, threshold: 0.3, minimumGap: Int(Double(spacing) / tempo * 0.7))
        try #require(inputOnsets.count == outputOnsets.count)
        let errors = zip(inputOnsets, outputOnsets).map { i, o in run.input(ofOutput: o) - Double(i) }
        let worst = errors.map(abs).max() ?? 0
        #expect(worst < 2_400, "onset errors (input frames) \(errors.map { Int($0) })")
    }

    @Test func tempoChangesKeepTheMappingAndTheLength() throws {
        let s = try TimeStretcher(channels: 1, sampleRate: 48_000, tempo: 1)
        let spacing = 24_000
        let input = bursts(frames: 48_000 * 12, spacing: spacing, burst: 4800)
        let run = stretch(input, s) { offset in
            if offset >= 48_000 * 4 { s.setTempo(1.5) }
            if offset >= 48_000 * 8 { s.setTempo(0.75) }
        }
        let out = run.samples
        // 4 s at 1×, then 4 s at 1.5×, then 4 s at 0.75× (corners where SoundTouch switched).
        let expected = s.outputPosition(ofInputFrame: Double(input.count))
        #expect(out.count == Int(expected.rounded()))
        #expect(abs(expected - (4 + 4 / 1.5 + 4 / 0.75) * 48_000) < 48_000 * 0.2)
        let inputOnsets = Measure.onsets(input, channels: 1, threshold: 0.3, minimumGap: 12_000)
        let outputOnsets = Measure.onsets(out, channels: 1, threshold: 0.3, minimumGap: 10_000)
        try #require(inputOnsets.count == outputOnsets.count)
        let errors = zip(inputOnsets, outputOnsets).map { i, o in run.input(ofOutput: o) - Double(i) }
        #expect(errors.map(abs).max() ?? 0 < 2_400, "onset errors (input frames) \(errors.map { Int($0) })")
    }

    @Test func tempoChangeIsSmooth() throws {
        // A steady sine through a tempo change: its envelope must not dip or jump.
        let s = try TimeStretcher(channels: 1, sampleRate: 48_000, tempo: 1)
        let input = Signals.sine(frequency: 440, amplitude: 0.5, seconds: 4, sampleRate: 48_000)
        let run = stretch(input, s) { offset in
            if offset >= 48_000 { s.setTempo(1.6) }
            if offset >= 96_000 { s.setTempo(0.6) }
        }
        let out = run.samples
        // Largest step allowed: the sine's own slope (2π·440/48000·0.5 ≈ 0.029) with WSOLA's crossfade slack.
        var worstStep: Float = 0
        for i in 1..<(out.count - 2400) { worstStep = max(worstStep, abs(out[i] - out[i - 1])) }
        #expect(worstStep < 0.045, "largest sample step \(worstStep)")
        // The envelope (peak over 10 ms windows) stays near 0.5 everywhere before the tail.
        var lowest: Float = 1
        for w in stride(from: 0, to: out.count - 4800, by: 480) {
            lowest = min(lowest, out[w..<(w + 480)].map(abs).max() ?? 0)
        }
        #expect(lowest > 0.4, "lowest 10 ms peak \(lowest)")
    }

    @Test func rejectsTooManyChannels() {
        #expect(throws: SoundTouchError.self) { try TimeStretcher(channels: 17, sampleRate: 48_000) }
    }
}
