import AudioEngine
import Foundation
import Testing
import TestSupport

/// Pitch-preserving rate, measured in the offline render.
@Suite struct RateTests {
    /// Renders period by period until the player finishes; returns the device frame count by then.
    private func framesUntilFinished(_ f: EngineFixture, _ p: Player, limit: Int) -> (frames: Int, output: [Float]) {
        var out: [Float] = []
        var frames = 0
        while frames < limit {
            out += f.render(frames: 256)
            frames += 256
            if p.state == .finished { break }
        }
        return (frames, out)
    }

    @Test(arguments: [2.0, 0.5])
    func rateKeepsThePitchAndScalesThePlayingTime(rate: Double) throws {
        let f = try EngineFixture()
        let seconds = 6.0
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 0.5, seconds: seconds, sampleRate: 48_000)))
        p.enableRate = true
        try p.setRate(rate)
        p.pan = -1
        #expect(p.play())
        let expected = Int(seconds / rate * 48_000)
        let (frames, out) = framesUntilFinished(f, p, limit: expected * 2)
        // It finishes within one period of duration / rate.
        #expect(abs(frames - expected) <= 256, "finished after \(frames) frames, expected \(expected)")
        let left = Measure.channel(out, channels: 2, 0)
        let last = left.lastIndex { abs($0) > 0.01 } ?? 0
        // The audio itself ends within WSOLA's reach of it (a sequence is up to ~125 ms at 0.5×).
        #expect(abs(last - expected) < 2_400, "last audible frame \(last), expected \(expected)")
        let hz = Measure.frequency(out, channels: 2, channel: 0, frames: (expected / 4)..<(3 * expected / 4), sampleRate: 48_000)
        #expect(abs(hz - 1000) < 10, "measured \(hz) Hz at rate \(rate)")
        #expect(p.currentTime == 0)
    }

    @Test func currentTimeAdvancesAtRateTimesRealTime() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 44_100), rate: 44_100))
        p.enableRate = true
        try p.setRate(1.5)
        p.play()
        _ = f.render(seconds: 2)
        #expect(abs(p.currentTime - 3.0) < 1.0 / 44_100 * 2, "currentTime \(p.currentTime)")
    }

    @Test func seekWithRateLandsWhereAsked() throws {
        let f = try EngineFixture()
        // Silence with a 100 ms 1 kHz burst at 5.0 s.
        var samples = [Float](repeating: 0, count: 48_000 * 8)
        for i in 0..<4_800 { samples[240_000 + i] = Float(0.8 * sin(2 * Double.pi * 1000 * Double(i) / 48_000)) }
        let p = try f.player(try f.wav("burst", samples))
        p.enableRate = true
        try p.setRate(1.5)
        p.pan = -1
        p.play()
        _ = f.render(seconds: 0.5)
        p.currentTime = 4.4
        #expect(p.currentTime == 4.4)
        let out = f.render(seconds: 1)
        // 1 s at 1.5× from 4.4 s: 5.9 s, exactly (to the frame).
        #expect(abs(p.currentTime - 5.9) < 2.0 / 48_000, "currentTime \(p.currentTime)")
        // The burst (0.6 s of sound after the seek) plays 0.4 s later, within WSOLA's reach.
        let onset = try #require(Measure.onset(out, channels: 2, channel: 0, threshold: 0.3))
        #expect(abs(onset - 19_200) < 1_600, "burst at \(onset), expected 19200")
    }

    @Test func rateChangeWhilePlayingIsSmoothAndKeepsTime() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000)))
        p.enableRate = true
        p.pan = -1
        p.play()
        var out = f.render(seconds: 1)
        #expect(abs(p.currentTime - 1) < 1e-4)
        try p.setRate(1.6)
        out += f.render(seconds: 1)
        let afterFast = p.currentTime
        try p.setRate(0.6)
        out += f.render(seconds: 1)
        let afterSlow = p.currentTime
        // The change reaches the output within ~0.2 s: time moved between the extremes.
        #expect(afterFast > 1 + 0.8 * 1.6 && afterFast < 1 + 1.6, "after 1 s at 1.6×: \(afterFast)")
        #expect(afterSlow - afterFast > 0.6 && afterSlow - afterFast < 0.6 + 0.2 * 1.0, "after 1 s at 0.6×: \(afterSlow)")
        // No click, no gap: steps stay within the sine's own slope (2π·440/48000·0.5 ≈ 0.029)
        // and its 10 ms envelope never dips.
        let left = Measure.channel(out, channels: 2, 0)
        var worst: Float = 0
        for i in 1..<left.count { worst = max(worst, abs(left[i] - left[i - 1])) }
        #expect(worst < 0.04, "largest step \(worst)")
        var lowest: Float = 1
        for w in stride(from: 480, to: left.count - 480, by: 480) { lowest = min(lowest, left[w..<(w + 480)].map(abs).max()!) }
        #expect(lowest > 0.45, "lowest 10 ms peak \(lowest)")
    }

    @Test func rateNeedsEnableRateBeforePrepare() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 440, seconds: 1, sampleRate: 48_000)))
        #expect(throws: EngineError.rateNotEnabled("rate needs enableRate: true, set before prepare")) { try p.setRate(1.5) }
        p.prepare()
        p.enableRate = true
        #expect(throws: EngineError.self) { try p.setRate(1.5) }
        #expect(p.rate == 1)
        p.stop()
        p.prepare()
        try p.setRate(1.5)
        #expect(p.rate == 1.5)
        #expect(throws: EngineError.invalidRate(2.5)) { try p.setRate(2.5) }
        #expect(throws: EngineError.self) { try p.setRate(.nan) }
        #expect(p.rate == 1.5)
    }

    @Test func loopsWithRateStaySeamlessAndWrapTheTime() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 500, amplitude: 0.5, seconds: 1, sampleRate: 48_000)))
        p.enableRate = true
        try p.setRate(1.25)
        p.numberOfLoops = 2
        p.pan = -1
        p.play()
        let out = f.render(seconds: 1.5)
        // 1.875 s of sound: the second pass, 0.875 s in.
        #expect(abs(p.currentTime - 0.875) < 1e-4, "currentTime \(p.currentTime)")
        let left = Measure.channel(out, channels: 2, 0)
        var worst: Float = 0
        for i in 1..<left.count { worst = max(worst, abs(left[i] - left[i - 1])) }
        #expect(worst < 0.04, "largest step \(worst)")
    }
}
