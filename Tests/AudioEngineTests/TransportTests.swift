import AudioEngine
import Testing
import TestSupport

/// prepare / play / pause / stop / seek with AVAudioPlayer's semantics.
@Suite struct TransportTests {
    /// A mono ramp whose sample value tells which frame it is.
    static func ramp(_ frames: Int) -> [Float] { (0..<frames).map { Float($0) / Float(frames) } }

    @Test func pauseAndPlayResumeOnTheNextSample() throws {
        let f = try EngineFixture()
        let frames = 48_000
        let p = try f.player(try f.wav("ramp", Self.ramp(frames)))
        p.pan = -1
        p.play()
        let first = Measure.channel(f.render(frames: 10_000), channels: 2, 0)
        p.pause()
        #expect(p.state == .paused)
        let gap = Measure.channel(f.render(frames: 3_000), channels: 2, 0)
        #expect(gap.allSatisfy { $0 == 0 })
        p.play()
        let second = Measure.channel(f.render(frames: 5_000), channels: 2, 0)
        let joined = first + second
        for i in 0..<joined.count { if joined[i] != Float(i) / Float(frames) { Issue.record("frame \(i): \(joined[i])"); break } }
    }

    @Test func stopKeepsCurrentTimeAndPlayResumesThere() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("ramp", Self.ramp(48_000)))
        p.pan = -1
        p.play()
        _ = f.render(frames: 12_000)
        p.stop()
        #expect(p.state == .stopped)
        #expect(p.currentTime == 0.25)
        _ = f.render(frames: 2_000)
        #expect(p.currentTime == 0.25)
        p.play()
        let out = Measure.channel(f.render(frames: 1_000), channels: 2, 0)
        #expect(out[0] == 0.25)
    }

    @Test func seekLandsWithinOneFrame() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("ramp", Self.ramp(48_000)))
        p.pan = -1
        p.play()
        _ = f.render(frames: 4_096)
        p.currentTime = 0.5
        #expect(p.currentTime == 0.5)
        let out = Measure.channel(f.render(frames: 2_048), channels: 2, 0)
        let first = try #require(out.firstIndex { $0 != 0 })
        #expect(abs(Double(out[first]) * 48_000 - 24_000) <= 1)
        // Seeking while stopped moves where play starts.
        p.stop()
        p.currentTime = 0.75
        p.play()
        let again = Measure.channel(f.render(frames: 1_024), channels: 2, 0)
        #expect(abs(Double(again[0]) * 48_000 - 36_000) <= 1)
    }

    @Test func theNaturalEndResetsCurrentTimeAndFinishes() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("short", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 0.2, sampleRate: 48_000)))
        #expect(p.duration == 0.2)
        #expect(p.prepare())
        #expect(p.state == .prepared)
        p.play()
        #expect(p.isPlaying)
        _ = f.render(seconds: 0.1)
        #expect(abs(p.currentTime - 0.1) < 0.001)
        _ = f.render(seconds: 0.2)
        #expect(p.state == .finished)
        #expect(!p.isPlaying)
        #expect(p.currentTime == 0)
    }

    @Test func playingWhilePlayingIsANoOp() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("ramp", Self.ramp(48_000)))
        p.play()
        _ = f.render(frames: 1_000)
        let before = p.currentTime
        #expect(p.play())
        #expect(p.currentTime == before)
    }
}
