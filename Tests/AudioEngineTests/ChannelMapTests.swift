import AudioEngine
import Testing
import TestSupport

/// Sound channels reach the right device channels.
@Suite struct ChannelMapTests {
    @Test func stereoOnAFourChannelDeviceUsesTheFirstPairByDefault() throws {
        let f = try EngineFixture(channels: 4)
        var samples = [Float](repeating: 0, count: 9_600)
        for i in 0..<4_800 { samples[2 * i] = 0.4; samples[2 * i + 1] = 0.2 }
        let p = try f.player(try f.wav("lr", samples, channels: 2))
        p.play()
        let out = f.render(frames: 1_000)
        #expect(Array(out[2_000..<2_004]) == [0.4, 0.2, 0, 0])
    }

    @Test func channelAssignmentsRouteEachSoundChannel() throws {
        let f = try EngineFixture(channels: 4)
        var samples = [Float](repeating: 0, count: 9_600)
        for i in 0..<4_800 { samples[2 * i] = 0.4; samples[2 * i + 1] = 0.2 }
        let p = try f.player(try f.wav("lr", samples, channels: 2))
        p.channelAssignments = [3, 2]
        p.play()
        let out = f.render(frames: 1_000)
        #expect(Array(out[2_000..<2_004]) == [0, 0, 0.2, 0.4])
    }

    @Test func monoDeviceDownmixesStereo() throws {
        let f = try EngineFixture(channels: 1)
        var samples = [Float](repeating: 0, count: 9_600)
        for i in 0..<4_800 { samples[2 * i] = 0.4; samples[2 * i + 1] = 0.2 }
        let p = try f.player(try f.wav("lr", samples, channels: 2))
        p.play()
        let out = f.render(frames: 1_000)
        #expect(abs(out[500] - 0.3) < 1e-6)
    }

    @Test func invalidChannelAssignmentsAreRejectedWithTheReason() throws {
        let f = try EngineFixture(channels: 4)
        let p = try f.player(try f.wav("lr", [Float](repeating: 0.1, count: 9_600), channels: 2))
        #expect(throws: EngineError.invalidChannelAssignments("channelAssignments needs one entry per sound channel (2), got 3")) {
            try p.setChannelAssignments([0, 1, 2])
        }
        #expect(throws: EngineError.invalidChannelAssignments("channelAssignments[1] = 4 is not an output channel (the device has 4: 0…3)")) {
            try p.setChannelAssignments([0, 4])
        }
        #expect(throws: EngineError.self) { try p.setChannelAssignments([-1, 0]) }
        #expect(p.channelAssignments == nil, "a rejected value changes nothing")
        try p.setChannelAssignments([3, 3])
        #expect(p.channelAssignments == [3, 3])
        try p.setChannelAssignments(nil)
        #expect(p.channelAssignments == nil)
    }

    @Test func metersCoverEveryDeviceChannel() throws {
        let f = try EngineFixture(channels: 4)
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 1, sampleRate: 48_000, channels: 2), channels: 2))
        try p.setChannelAssignments([2, 3])
        p.meteringEnabled = true
        p.play()
        _ = f.render(seconds: 0.3)
        let peaks = p.meterReadings.map(\.peakPower)
        #expect(peaks.count == 4)
        #expect(peaks[0] == -160 && peaks[1] == -160)
        #expect(abs(peaks[2] - (-6.02)) < 0.5 && abs(peaks[3] - (-6.02)) < 0.5, "\(peaks)")
    }
}
