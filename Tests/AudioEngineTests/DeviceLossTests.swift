import AudioCore
import AudioEngine
import Foundation
import Testing
import TestSupport

/// Route changes: the output device goes away and comes back while players play.
extension RealtimeEngineTests {
    /// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
    private func wait(_ seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }

    private func routeChanges(_ log: EventLog) -> [String] {
        log.all.compactMap { if case let .routeChange(reason, _) = $0 { reason } else { nil } }
    }

    private func longTone(_ name: String) throws -> String {
        let path = try Shell.temporaryDirectory() + "/\(name).wav"
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.2, seconds: 30, sampleRate: 48_000), sampleRate: 48_000,
                          channels: 1, to: path, float: true)
        return path
    }

    @Test func aLostDevicePausesPlayersKeepsTheClockAndComesBack() throws {
        let sink = FaultySink(format: AudioFormat(sampleRate: 48_000, channels: 2), periodFrames: 256)
        let engine = Engine(sink: sink)
        #expect(engine.onDeviceLoss == .pause)
        try engine.start()
        defer { engine.shutdown() }
        let log = EventLog()
        engine.setEventHandler { log.append($0) }
        let p = try engine.makePlayer(id: "music", input: .file(try longTone("music")))
        #expect(p.play())
        #expect(wait(3) { p.state == .playing && p.currentTime > 0.2 })

        sink.loseDevice(refusingOpens: 2)  // reopens after 0.25 + 0.5 + 1 s of backoff
        #expect(wait(2) { routeChanges(log) == ["oldDeviceUnavailable"] })
        #expect(wait(1) { p.state == .paused })
        #expect(log.all.contains(.stateChanged(playerID: "music", state: .paused)))
        let detail = log.all.compactMap { if case let .routeChange(_, detail) = $0 { detail } else { nil } }.first
        #expect(detail?.contains("device unplugged") == true)
        #expect(engine.isDeviceLost)
        #expect(engine.deviceError?.contains("device unplugged") == true)
        let pausedAt = p.currentTime
        #expect(pausedAt > 0.2)

        // The device clock keeps running while the device is gone.
        let lostClock = engine.deviceCurrentTime
        usleep(300_000)
        #expect(engine.deviceCurrentTime > lostClock + 0.2)

        #expect(wait(6) { routeChanges(log) == ["oldDeviceUnavailable", "newDeviceAvailable"] })
        #expect(log.all.contains(.routeChange(reason: "newDeviceAvailable", detail: "faulty:test")))
        #expect(engine.deviceError == nil)
        #expect(!engine.isDeviceLost)
        #expect(sink.openAttempts.load(ordering: .relaxed) == 4)  // start, 2 refused, 1 success
        #expect(sink.opens.load(ordering: .relaxed) == 2)
        // Still paused where it was (iOS semantics) while the clock keeps going.
        #expect(p.state == .paused)
        #expect(abs(p.currentTime - pausedAt) < 0.01)
        let backClock = engine.deviceCurrentTime
        usleep(200_000)
        #expect(engine.deviceCurrentTime > backClock + 0.1)
        // Playing again resumes from the kept position.
        #expect(p.play())
        #expect(wait(2) { p.state == .playing && p.currentTime > pausedAt + 0.1 })
        #expect(p.currentTime < pausedAt + 1.5)
    }

    @Test func withContinueAPlayerKeepsPlayingThroughADeviceLoss() throws {
        let sink = FaultySink(format: AudioFormat(sampleRate: 48_000, channels: 2), periodFrames: 256)
        let engine = Engine(sink: sink, onDeviceLoss: .continue)
        try engine.start()
        defer { engine.shutdown() }
        let log = EventLog()
        engine.setEventHandler { log.append($0) }
        let p = try engine.makePlayer(id: "music", input: .file(try longTone("music")))
        #expect(p.play())
        #expect(wait(3) { p.state == .playing && p.currentTime > 0.1 })

        sink.loseDevice(refusingOpens: 1)
        #expect(wait(2) { routeChanges(log) == ["oldDeviceUnavailable"] })
        let lostAt = p.currentTime
        usleep(200_000)
        #expect(p.state == .playing)
        #expect(p.currentTime > lostAt + 0.1)
        #expect(wait(4) { routeChanges(log) == ["oldDeviceUnavailable", "newDeviceAvailable"] })
        #expect(engine.deviceError == nil)
        #expect(p.state == .playing)
        #expect(!log.all.contains(.stateChanged(playerID: "music", state: .paused)))
        let backAt = p.currentTime
        usleep(200_000)
        #expect(p.currentTime > backAt + 0.1)
    }
}
