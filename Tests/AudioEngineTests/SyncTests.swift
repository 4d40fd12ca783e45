import AudioEngine
import Testing
import TestSupport

/// Players started for the same device time start on the same output frame.
@Suite struct SyncTests {
    @Test func twoPlayersPannedApartClickOnTheSameFrame() throws {
        let f = try EngineFixture()
        let a = try f.player(try f.wav("a", Signals.click(at: 1000, frames: 24_000)))
        let b = try f.player(try f.wav("b", Signals.click(at: 1000, frames: 24_000)))
        a.pan = -1
        b.pan = 1
        _ = f.render(frames: 512)
        let start = f.engine.deviceCurrentTime + 0.1037
        #expect(f.engine.play([a, b], atTime: start).ok)
        let out = f.render(seconds: 0.5)
        let left = try #require(Measure.onset(out, channels: 2, channel: 0))
        let right = try #require(Measure.onset(out, channels: 2, channel: 1))
        #expect(left == right)
        // The click is frame 1000 of the sound; the sound's frame 0 plays at round(start × rate).
        let expected = Int((start * 48_000).rounded()) + 1000  // the timeline was idle (0) until the start
        #expect(left == expected)
        #expect(Measure.peak(out, channels: 2, channel: 1, frames: left..<left + 1) > 0.99)
    }

    @Test func separateRequestsForTheSameTimeAlign() throws {
        let f = try EngineFixture()
        let a = try f.player(try f.wav("a", Signals.click(at: 300, frames: 24_000)))
        let b = try f.player(try f.wav("b", Signals.click(at: 300, frames: 24_000)))
        a.pan = -1
        b.pan = 1
        _ = f.render(frames: 300)
        let t = f.engine.deviceCurrentTime + 0.05
        #expect(a.play(atTime: t).ok)
        _ = f.render(frames: 700)  // b's request arrives later than a's, still before t
        #expect(b.play(atTime: t).lateBy == 0)
        let out = f.render(seconds: 0.3)
        #expect(Measure.onset(out, channels: 2, channel: 0) == Measure.onset(out, channels: 2, channel: 1))
    }

    @Test func aStartTimeInThePastStillAligns() throws {
        let f = try EngineFixture()
        let a = try f.player(try f.wav("a", Signals.click(at: 20_000, frames: 48_000)))
        let b = try f.player(try f.wav("b", Signals.click(at: 20_000, frames: 48_000)))
        a.pan = -1
        b.pan = 1
        let keepAlive = try f.player(try f.wav("silence", [Float](repeating: 0, count: 96_000)))
        keepAlive.play()
        _ = f.render(frames: 4096)
        let t = 0.01  // 480 frames: long past
        let first = a.play(atTime: t)
        #expect(first.ok)
        #expect(first.lateBy > 0.07)
        _ = f.render(frames: 2048)
        let second = b.play(atTime: t)
        #expect(second.lateBy > first.lateBy)
        let out = f.render(seconds: 0.5)
        let left = try #require(Measure.onset(out, channels: 2, channel: 0))
        let right = try #require(Measure.onset(out, channels: 2, channel: 1))
        #expect(left == right)
        // Rendered so far: 4096 + 2048 frames before `out`; the click plays at 480 + 20000.
        #expect(left + 4096 + 2048 == 480 + 20_000)
    }

    @Test func mp3At44100AndWavAt48000ClickWithinOneFrame() throws {
        let f = try EngineFixture()
        // The same click at 0.25 s: frame 11025 at 44.1 kHz, frame 12000 at 48 kHz.
        let mp3 = try f.mp3("click44", Signals.click(at: 11_025, frames: 44_100, amplitude: 0.9), rate: 44_100, arguments: ["-b", "320"])
        let wav = try f.wav("click48", Signals.click(at: 12_000, frames: 48_000, amplitude: 0.9))
        let a = try f.player(mp3)
        let b = try f.player(wav)
        a.pan = -1
        b.pan = 1
        #expect(f.engine.play([a, b], atTime: 0).ok)
        let out = f.render(seconds: 0.5)
        let left = Measure.channel(out, channels: 2, 0).map(abs)
        let right = Measure.channel(out, channels: 2, 1).map(abs)
        let peakLeft = left.indices.max { left[$0] < left[$1] }!
        let peakRight = right.indices.max { right[$0] < right[$1] }!
        #expect(peakRight == 12_000)
        #expect(abs(peakLeft - peakRight) <= 1, "MP3 click at \(peakLeft), WAV click at \(peakRight)")
    }
}
