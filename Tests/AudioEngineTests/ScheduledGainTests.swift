import AudioEngine
import Foundation
import Testing
import TestSupport

/// Gain ramps scheduled on the device clock (`Player.scheduleVolume`, `EngineCommand.gainAt`),
/// measured sample by sample on a DC signal panned hard left (left = 0.5 × gain).
@Suite struct ScheduledGainTests {
    @Test func aScheduledRampStartsOnItsExactFrameMidPeriod() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        let now = Int((f.engine.deviceCurrentTime * 48_000).rounded())
        let at = now + 1_000  // not a period boundary (periods are 256 frames)
        #expect(at % 256 != 0)
        p.scheduleVolume(0, atDeviceTime: Double(at) / 48_000, rampDuration: 100.0 / 48_000)
        #expect(p.volume == 0, "the control side reads the target")
        let out = Measure.channel(f.render(frames: 2_048), channels: 2, 0)
        #expect(out[999] == 0.5)
        #expect(out[1_000] == 0.5, "the ramp's first value is the gain it starts from")
        #expect(abs(out[1_001] - 0.5 * 0.99) < 1e-5, "frame 1001: \(out[1_001])")
        #expect(abs(out[1_050] - 0.25) < 1e-4, "frame 1050: \(out[1_050])")
        #expect(out[1_100] == 0)
        #expect(out.last == 0)
    }

    @Test func aNewerScheduleReplacesAPendingOne() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        let now = Int((f.engine.deviceCurrentTime * 48_000).rounded())
        p.scheduleVolume(0, atDeviceTime: Double(now + 300) / 48_000, rampDuration: 10.0 / 48_000)
        p.scheduleVolume(0.5, atDeviceTime: Double(now + 777) / 48_000, rampDuration: 0)
        let out = Measure.channel(f.render(frames: 2_048), channels: 2, 0)
        #expect(out[300] == 0.5 && out[400] == 0.5, "the first schedule was replaced")
        #expect(out[776] == 0.5 && out[777] == 0.5)
        #expect(out[778] < 0.5 && out[777 + 240] == 0.25, "smoothing ramp to half gain from frame 777")
    }

    @Test func aScheduleInThePastStartsAtOnce() throws {
        let f = try EngineFixture()
        let p = try f.dcPlayer()
        p.scheduleVolume(0, atDeviceTime: 0, rampDuration: 64.0 / 48_000)
        let out = Measure.channel(f.render(frames: 512), channels: 2, 0)
        #expect(out[0] == 0.5 && out[1] < 0.5 && out[64] == 0)
    }
}
