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
}
