import AudioCore
import AudioEngine
import AudioOutput
import Foundation
import Synchronization
import Testing
import TestSupport

/// The engine driving a real-time sink from its render thread.
@Suite(.serialized) struct RealtimeEngineTests {
    /// Collects engine events for assertions.
    final class EventLog: Sendable {
        let events = Mutex<[EngineEvent]>([])
        func append(_ e: EngineEvent) { events.withLock { $0.append(e) } }
        var all: [EngineEvent] { events.withLock { $0 } }
    }

    @Test func twoPlayersOnTheWAVSinkStartOnTheSameFrame() throws {
        let dir = try Shell.temporaryDirectory()
        let out = dir + "/out.wav"
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let engine = Engine(sink: WAVFileSink(path: out, format: format, periodFrames: 256, periods: 4))
        try engine.start()
        let click = dir + "/click.wav"
        try WAVFile.write(Signals.click(at: 2_400, frames: 9_600), sampleRate: 48_000, channels: 1, to: click, float: true)
        let a = try engine.makePlayer(id: "a", input: .file(click))
        let b = try engine.makePlayer(id: "b", input: .file(click))
        a.pan = -1
        b.pan = 1
        let log = EventLog()
        engine.setEventHandler { log.append($0) }
        let keep = try engine.makePlayer(id: "keep", input: .file(click))
        keep.volume = 0
        keep.numberOfLoops = -1
        keep.play()
        usleep(100_000)
        let t = engine.deviceCurrentTime + 0.2
        #expect(a.play(atTime: t).ok)
        usleep(50_000)
        #expect(b.play(atTime: t).ok)  // aligned to t even if a loaded machine makes it late
        usleep(600_000)
        #expect(engine.deviceCurrentTime > t + 0.3)
        #expect(a.state == .finished && b.state == .finished)
        engine.shutdown()
        let wav = try WAVFile.read(out)
        let left = try #require(Measure.onset(wav.samples, channels: 2, channel: 0))
        let right = try #require(Measure.onset(wav.samples, channels: 2, channel: 1))
        #expect(left == right)
        #expect(log.all.contains(.finished(playerID: "a", successfully: true)))
    }

    @Test func aDecodeErrorMidPlayReportsThenFinishesUnsuccessfully() throws {
        let f = try EngineFixture()
        let log = EventLog()
        f.engine.setEventHandler { log.append($0) }
        // The file is cut on disk after the player opened it (a share going away mid-play).
        let path = try f.wav("tone", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 48_000), float: false)
        let p = try f.player(path, id: "cut")
        #expect(truncate(path, 44 + 96_000) == 0)  // header + 1 s of 16-bit mono
        p.play()
        let out = f.render(seconds: 1.5)
        // Everything before the cut plays; then the error, then finished(false).
        #expect(Measure.peak(out, channels: 2, channel: 0, frames: 40_000..<47_000) > 0.3)
        #expect(Measure.peak(out, channels: 2, channel: 0, frames: 50_000..<72_000) == 0)
        let events = log.all
        let errorIndex = try #require(events.firstIndex { if case .decodeError(playerID: "cut", _) = $0 { true } else { false } })
        let finishedIndex = try #require(events.firstIndex(of: .finished(playerID: "cut", successfully: false)))
        #expect(errorIndex < finishedIndex)
        #expect(p.state == .finished)
    }

    @Test func playsThroughTheRealALSAPathToPulseAudio() throws {
        do { try PulseAudioServer.ensureRunning() } catch {
            Issue.record("PulseAudio could not be started for the ALSA test: \(error)")
            return
        }
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let engine = Engine(sink: ALSASink(device: "pulse", format: format, periodFrames: 1024, periods: 4))
        try engine.start()
        defer { engine.shutdown() }
        let dir = try Shell.temporaryDirectory()
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.3, seconds: 1, sampleRate: 44_100), sampleRate: 44_100,
                          channels: 1, to: dir + "/tone.wav")
        let p = try engine.makePlayer(id: "tone", input: .file(dir + "/tone.wav"))
        #expect(p.play())
        // PulseAudio's null sink may hold a new stream for up to 2 s before it starts pulling.
        let deadline = Date().addingTimeInterval(8)
        var maximumTime = 0.0
        while p.state != .finished && Date() < deadline {
            maximumTime = max(maximumTime, engine.deviceCurrentTime)
            usleep(20_000)
        }
        #expect(p.state == .finished, "the device clock reached \(maximumTime) s")
        #expect(maximumTime >= 0.9, "the device clock advanced while playing")
        #expect(engine.deviceError == nil)
        #expect(engine.outputDescription.kind == "alsa")
        #expect(engine.outputLatency > 0)
    }
}
