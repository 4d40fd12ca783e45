import AudioEngine
import Testing
import TestSupport

/// numberOfLoops: n + 1 seamless passes, or forever when negative.
@Suite struct LoopTests {
    @Test func oneLoopGivesTwoClicksOneDurationApart() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("click", Signals.click(at: 100, frames: 9_000)))
        p.numberOfLoops = 1
        p.pan = -1
        p.play()
        let out = f.render(seconds: 0.5)
        #expect(Measure.onsets(out, channels: 2) == [100, 9_100])
        #expect(p.state == .finished)
    }

    @Test func aLoopedNoiseFileRepeatsSampleExactly() throws {
        let f = try EngineFixture()
        let noise = Signals.noise(frames: 5_000)
        let p = try f.player(try f.wav("noise", noise))
        p.numberOfLoops = 2
        p.pan = -1
        p.play()
        let left = Measure.channel(f.render(frames: 16_000), channels: 2, 0)
        for pass in 0..<3 {
            #expect(Array(left[pass * 5_000..<(pass + 1) * 5_000]) == noise, "pass \(pass)")
        }
        #expect(left[15_000..<16_000].allSatisfy { $0 == 0 })
    }

    @Test func negativeLoopsRunUntilStopped() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("click", Signals.click(at: 10, frames: 4_800)))
        p.numberOfLoops = -1
        p.pan = -1
        p.play()
        let out = f.render(seconds: 2)
        #expect(Measure.onsets(out, channels: 2).count == 20)
        #expect(p.isPlaying)
        p.stop()
        let after = f.render(seconds: 0.5)
        #expect(Measure.onset(after, channels: 2) == nil)
    }
}
