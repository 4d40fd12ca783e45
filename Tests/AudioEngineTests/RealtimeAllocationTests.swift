import AudioEngine
import CAllocCounter
import Testing
import TestSupport

/// The real-time rule: the render loop allocates nothing (DESIGN.md §2). Meaningful in a
/// release build (`make test` runs it with `-c release`); debug builds may box values.
@Suite struct RealtimeAllocationTests {
    @Test func renderLoopAllocatesNothingWithSixteenPlayers() throws {
        let f = try EngineFixture()
        let (noise, mp3) = try sounds(f)
        var players: [Player] = []
        for i in 0..<16 {
            let p = try f.player(i % 2 == 0 ? noise : mp3)
            p.numberOfLoops = -1
            p.pan = Double(i) / 8 - 1
            p.volume = 0.5
            players.append(p)
        }
        #expect(f.engine.play(players, atTime: 0).ok)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { buffer.deallocate() }
        f.engine.render(frames: 256, into: buffer)  // first cycle applies the queued commands
        players[3].setVolume(0.1, fadeDuration: 2)  // ramps and pan changes during the run
        players[4].pan = 0.3
        alloc_counter_begin()
        for _ in 0..<10_000 { f.engine.render(frames: 256, into: buffer) }
        let allocations = alloc_counter_end()
        #expect(allocations == 0, "\(allocations) allocations in 10,000 periods")
        #expect(players.allSatisfy { $0.isPlaying })
    }

    /// The two sounds the players alternate: stereo noise at the device rate, and a 44.1 kHz
    /// MP3 (which plays through a resample bus).
    private func sounds(_ f: EngineFixture) throws -> (noise: String, mp3: String) {
        (try f.wav("noise", Signals.noise(frames: 48_000, channels: 2), channels: 2),
         try f.mp3("tone", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 44_100), rate: 44_100))
    }

    @Test func theCounterSeesAnAllocation() {
        alloc_counter_begin()
        let array = [Int](repeating: 7, count: 1000)
        let counted = alloc_counter_end()
        #expect(array.count == 1000)
        #expect(counted >= 1)
    }

    @Test func renderLoopAllocatesNothingWithRateMeteringAndFades() throws {
        let f = try EngineFixture()
        let (noise, mp3) = try sounds(f)
        var players: [Player] = []
        for i in 0..<16 {
            let p = try f.player(i % 2 == 0 ? noise : mp3)
            p.numberOfLoops = -1
            p.pan = Double(i) / 8 - 1
            p.enableRate = i % 4 != 3
            if p.enableRate { try p.setRate(0.5 + Double(i) / 10) }
            p.meteringEnabled = i % 2 == 0
            players.append(p)
        }
        #expect(f.engine.play(players, atTime: 0).ok)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { buffer.deallocate() }
        f.engine.render(frames: 256, into: buffer)
        for (i, p) in players.enumerated() { p.setVolume(i % 2 == 0 ? 0.2 : 0.9, fadeDuration: 1 + Double(i) / 4) }
        players[5].pan = 0.3
        players[6].meteringEnabled = false
        players[7].meteringEnabled = true
        alloc_counter_begin()
        for _ in 0..<5_000 { f.engine.render(frames: 256, into: buffer) }
        var allocations = alloc_counter_end()
        // Control-plane changes mid-run (they may allocate; the render calls after them may not).
        try players[0].setRate(1.7)
        players[2].setVolume(1, fadeDuration: 0.5)
        players[4].meteringEnabled = false
        alloc_counter_begin()
        for _ in 0..<5_000 { f.engine.render(frames: 256, into: buffer) }
        allocations += alloc_counter_end()
        #expect(allocations == 0, "\(allocations) allocations in 10,000 periods")
        #expect(players.allSatisfy { $0.isPlaying })
        #expect(players[0].peakPower(forChannel: 0) > -20)
    }
}
