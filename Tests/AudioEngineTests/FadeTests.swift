import AudioEngine
import Foundation
import Testing
import TestSupport

/// Fades and gain smoothing, measured sample by sample on a DC signal panned hard left
/// (left = 0.5 × gain × pan coefficient).
@Suite struct FadeTests {
    private func largestStep(_ x: [Float]) -> Float {
        var worst: Float = 0
        for i in 1..<x.count { worst = max(worst, abs(x[i] - x[i - 1])) }
        return worst
    }

    @Test func fadeToSilenceOverOneSecond() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.setVolume(0, fadeDuration: 1)
        let first = Measure.channel(f.render(seconds: 0.5), channels: 2, 0)
        #expect(abs(p.volume - 0.5) < 0.001, "volume mid-fade \(p.volume)")
        let second = Measure.channel(f.render(seconds: 0.6), channels: 2, 0)
        let out = first + second
        let mid = Double(out[24_000]) / 0.5
        #expect(abs(Measure.dB(mid) - (-6.02)) < 0.5, "midpoint \(Measure.dB(mid)) dB")
        // The ramp moves 0.5/48000 per frame; nothing may move more.
        #expect(largestStep([0.5] + out) <= 0.5 / 48_000 * 1.01)
        #expect(out[48_000] == 0)
        #expect(out.last == 0)
        #expect(p.volume == 0)
    }

    @Test func aFadeInterruptedByAnotherHasNoJump() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.setVolume(0, fadeDuration: 1)
        var out = Measure.channel(f.render(seconds: 0.3), channels: 2, 0)
        p.setVolume(1, fadeDuration: 0.5)
        out += Measure.channel(f.render(seconds: 0.6), channels: 2, 0)
        // Second fade: from 0.7 to 1 over 0.5 s, i.e. 0.5 × 0.3 / 24000 per frame — smaller than the first.
        #expect(largestStep([0.5] + out) <= 0.5 / 48_000 * 1.01)
        #expect(abs(out[14_400] - 0.35) < 0.001)
        #expect(out.last == 0.5)
    }

    @Test func aVolumeStepDuringAFadeTakesOverSmoothly() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.setVolume(0, fadeDuration: 1)
        var out = Measure.channel(f.render(seconds: 0.5), channels: 2, 0)
        p.volume = 1
        #expect(p.volume == 1, "a plain set reads the new value at once")
        out += Measure.channel(f.render(frames: 1_024), channels: 2, 0)
        // From 0.5 to 1 over the 5 ms smoothing: 0.5 × 0.5 / 240 per frame.
        #expect(largestStep([0.5] + out) <= 0.5 * 0.5 / 240 * 1.01)
        #expect(out.last == 0.5)
    }

    @Test func volumeStepIsSmoothedOverFiveMilliseconds() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.volume = 0
        let out = Measure.channel(f.render(frames: 1_024), channels: 2, 0)
        let step = largestStep([0.5] + out)
        // Measured: a full-scale change moves at most 1/240 of it per frame (5 ms at 48 kHz).
        #expect(step <= 0.5 / 240 * 1.01, "largest step \(step)")
        #expect(out[240] == 0 && out[200] > 0)
    }

    @Test func panStepIsSmoothedOverFiveMilliseconds() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.pan = 1
        let out = f.render(frames: 1_024)
        let left = Measure.channel(out, channels: 2, 0)
        let right = Measure.channel(out, channels: 2, 1)
        let stepL = largestStep([0.5] + left)
        let stepR = largestStep([0] + right)
        #expect(stepL <= 0.5 / 240 * 1.01, "left largest step \(stepL)")
        #expect(stepR <= 0.5 / 240 * 1.01, "right largest step \(stepR)")
        #expect(abs(left[1_000]) < 1e-6)
        #expect(abs(right[1_000] - 0.5) < 1e-6)
    }
}
