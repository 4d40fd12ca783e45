import AudioEngine
import Foundation
import Testing
import TestSupport

/// Metering (SPEC 2.2), read through the player while the offline engine renders.
@Suite struct MeterTests {
    @Test func sineOfHalfAmplitudeReadsMinusSixPeakAndMinusNineAverage() throws {
        let f = try EngineFixture()
        // A stereo file at pan 0 is unchanged: each output channel carries the 0.5 sine.
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 2), channels: 2))
        p.meteringEnabled = true
        p.play()
        _ = f.render(seconds: 0.5)
        for c in 0..<2 {
            #expect(abs(p.peakPower(forChannel: c) - (-6.02)) < 0.5, "peak \(p.peakPower(forChannel: c))")
            #expect(abs(p.averagePower(forChannel: c) - (-9.03)) < 0.5, "average \(p.averagePower(forChannel: c))")
        }
        #expect(p.meterReadings.count == 2)
    }

    @Test func metersFollowVolumeAndPan() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 2, sampleRate: 48_000)))
        p.meteringEnabled = true
        p.pan = -1
        p.volume = 0.5
        p.play()
        _ = f.render(seconds: 0.5)
        #expect(abs(p.peakPower(forChannel: 0) - (-12.04)) < 0.5)
        #expect(abs(p.averagePower(forChannel: 0) - (-15.05)) < 0.5)
        #expect(p.peakPower(forChannel: 1) == -160)
        #expect(p.averagePower(forChannel: 1) == -160)
    }

    @Test func silenceReadsTheFloor() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("silence", [Float](repeating: 0, count: 96_000), channels: 2))
        p.meteringEnabled = true
        p.play()
        _ = f.render(seconds: 0.3)
        #expect(p.meterReadings.count == 2)
        #expect(p.meterReadings.allSatisfy { $0.averagePower == -160 && $0.peakPower == -160 })
    }

    @Test func meteringOffReadsTheFloorAndPausedDecays() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 2), channels: 2))
        p.play()
        _ = f.render(seconds: 0.2)
        #expect(p.peakPower(forChannel: 0) == -160)
        p.meteringEnabled = true
        _ = f.render(seconds: 0.2)
        #expect(p.peakPower(forChannel: 0) > -7)
        p.pause()
        _ = f.render(seconds: 0.1)
        #expect(p.peakPower(forChannel: 0) == -160, "a paused player plays silence")
        #expect(p.peakPower(forChannel: 5) == -160)
    }

    @Test func fadeMidpointReadsMinusSixOnTheMeter() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 1, seconds: 3, sampleRate: 48_000, channels: 2), channels: 2))
        p.meteringEnabled = true
        p.play()
        _ = f.render(seconds: 0.2)
        p.setVolume(0, fadeDuration: 1)
        // The meter covers the last 50 ms: stop 25 ms past the midpoint so its centre is the midpoint.
        _ = f.render(seconds: 0.525)
        #expect(abs(p.averagePower(forChannel: 0) - (-6.02 - 3.01)) < 0.5, "average \(p.averagePower(forChannel: 0))")
    }
}
