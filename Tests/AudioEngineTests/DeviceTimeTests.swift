import AudioEngine
import Testing
import TestSupport

/// deviceCurrentTime runs while a player plays or is paused and is 0 otherwise (SPEC 2.1).
@Suite struct DeviceTimeTests {
    @Test func runsWhilePlayingOrPausedAndRevertsToZero() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("tone", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000)))
        _ = f.render(seconds: 0.1)
        #expect(f.engine.deviceCurrentTime == 0)
        p.play()
        _ = f.render(frames: 4_800)
        #expect(abs(f.engine.deviceCurrentTime - 0.1) < 0.006)
        p.pause()
        _ = f.render(frames: 4_800)
        #expect(abs(f.engine.deviceCurrentTime - 0.2) < 0.006, "paused players keep the clock running")
        p.stop()
        _ = f.render(frames: 512)
        #expect(f.engine.deviceCurrentTime == 0)
    }

    @Test func aScheduledStartCountsAsPlaying() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("tone", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 0.2, sampleRate: 48_000)))
        _ = p.play(atTime: 0.5)
        #expect(p.state == .scheduled)
        _ = f.render(seconds: 0.25)
        #expect(abs(f.engine.deviceCurrentTime - 0.25) < 0.006)
        _ = f.render(seconds: 0.3)
        #expect(p.state == .playing)
        _ = f.render(seconds: 0.3)
        #expect(p.state == .finished)
        #expect(f.engine.deviceCurrentTime == 0)
    }
}
