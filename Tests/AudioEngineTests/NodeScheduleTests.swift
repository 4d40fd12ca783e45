import AudioCore
import AudioDecoding
import AudioEngine
import AudioOutput
import Foundation
import Synchronization
import Testing
import TestSupport

/// Player nodes (AVAudioPlayerNode): segments and buffers on the node's timeline, gapless
/// sequences, explicit sample times, completion callbacks and stop.
@Suite struct NodeScheduleTests {
    /// Collects engine events (the monitor thread and `poll` call the handler).
    final class Events: Sendable {
        let list = Mutex<[EngineEvent]>([])
        init(_ engine: Engine) { engine.setEventHandler { [self] e in list.withLock { $0.append(e) } } }
        var completions: [(item: String, type: CompletionCallbackType, sampleTime: Int64, deviceTime: Double, cancelled: Bool)] {
            list.withLock { $0 }.compactMap {
                if case let .nodeCompleted(_, item, type, sampleTime, deviceTime, cancelled) = $0 { return (item, type, sampleTime, deviceTime, cancelled) }
                return nil
            }
        }
    }

    private func stereoNoise(_ frames: Int, seed: UInt64 = 7) -> [Float] {
        Signals.noise(frames: frames, channels: 2, amplitude: 0.4, seed: seed)
    }

    @Test(arguments: [48_000, 44_100])
    func threeSegmentsOfOneMP3PlayLikeTheFileStraightThrough(rate: Int) throws {
        let f = try EngineFixture()
        let path = try f.mp3("noise\(rate)", stereoNoise(rate * 3 / 2), rate: rate, channels: 2)
        let reference = try straightThrough(path, f)

        let g = try EngineFixture()
        let node = try g.engine.makeNode(id: "n", channels: 2)
        let length = try AudioDecoders.open(.file(path)).frameCount
        let cuts: [Int64] = [0, 20_000, 41_234, length]
        for k in 0..<3 {
            _ = try node.scheduleSegment(try AudioDecoders.open(.file(path)), key: path, startingFrame: cuts[k], frameCount: cuts[k + 1] - cuts[k],
                                         at: nil, callbackType: .dataConsumed, id: nil)
        }
        #expect(node.player.play())
        let out = g.render(seconds: 1.6)
        #expect(Measure.rms(reference, channels: 2, channel: 1, frames: 0..<rate) > 0.1)
        #expect(out.count == reference.count)
        let differing = zip(out, reference).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ from the file played straight through")
    }

    /// 1.6 s of `path` played straight through, as one item (a node converts its items'
    /// rates itself; at the device rate that is exactly what a player plays, checked here too).
    private func straightThrough(_ path: String, _ f: EngineFixture) throws -> [Float] {
        let node = try f.engine.makeNode(id: "whole", channels: 2)
        _ = try node.scheduleSegment(try AudioDecoders.open(.file(path)), key: path, startingFrame: 0, frameCount: nil, at: nil,
                                     callbackType: .dataConsumed, id: nil)
        #expect(node.player.play())
        let out = f.render(seconds: 1.6)
        node.player.remove()
        let decoder = try AudioDecoders.open(.file(path))
        if decoder.settings.sampleRate == f.rate {
            let player = try f.player(path)
            player.play()
            #expect(f.render(seconds: 1.6) == out, "a node item at the device rate plays exactly as a player")
            player.remove()
        }
        return out
    }

    @Test func aSegmentScheduledWhileThePreviousPlaysStillJoinsSampleExactly() throws {
        let f = try EngineFixture()
        let path = try f.mp3("noise", stereoNoise(44_100), rate: 44_100, channels: 2)
        let reference = Array(try straightThrough(path, f).prefix(Int(1.2 * 48_000) * 2))

        let g = try EngineFixture()
        let node = try g.engine.makeNode(id: "n", channels: 2)
        let length = try AudioDecoders.open(.file(path)).frameCount
        _ = try node.scheduleSegment(try AudioDecoders.open(.file(path)), key: path, startingFrame: 0, frameCount: 30_000, at: nil,
                                     callbackType: .dataConsumed, id: nil)
        #expect(node.player.play())
        var out = g.render(seconds: 0.2)  // the first segment is being read now
        _ = try node.scheduleSegment(try AudioDecoders.open(.file(path)), key: path, startingFrame: 30_000, frameCount: length - 30_000,
                                     at: nil, callbackType: .dataConsumed, id: nil)
        out += g.render(seconds: 1)
        #expect(zip(out, reference).filter { $0 != $1 }.count == 0)
    }

    @Test func anItemAtASampleTimeStartsOnThatSample() throws {
        let f = try EngineFixture()
        let node = try f.engine.makeNode(id: "n", channels: 2)
        let click = Signals.click(at: 0, frames: 100, channels: 2)
        _ = try node.scheduleBuffer(click, at: 12_345, callbackType: .dataRendered, id: "late")
        _ = try node.scheduleBuffer(click, at: 3_000, callbackType: .dataRendered, id: "early")
        _ = node.player.play(atTime: 0)
        let out = f.render(frames: 20_000)
        #expect(Measure.onsets(out, channels: 2) == [3_000, 12_345])
        #expect(node.queue.isEmpty)
    }

    @Test func anItemAtNilFollowsThePreviousOne() throws {
        let f = try EngineFixture()
        let node = try f.engine.makeNode(id: "n", channels: 1)
        let a = try node.scheduleBuffer(Signals.click(at: 10, frames: 1_000), at: 500, callbackType: .dataConsumed, id: nil)
        let b = try node.scheduleBuffer(Signals.click(at: 10, frames: 1_000), at: nil, callbackType: .dataConsumed, id: nil)
        #expect(a.sampleTime == 500 && b.sampleTime == 1_500)
        _ = node.player.play(atTime: 0)
        #expect(Measure.onsets(f.render(frames: 4_000), channels: 2) == [510, 1_510])
    }

    @Test func renderedReportsTheExactEndAndConsumedComesFirst() throws {
        let f = try EngineFixture()
        let events = Events(f.engine)
        let node = try f.engine.makeNode(id: "n", channels: 2)
        let tone = Signals.sine(frequency: 440, amplitude: 0.5, seconds: 0.25, sampleRate: 48_000, channels: 2)
        _ = try node.scheduleBuffer(tone, at: 4_800, callbackType: .dataConsumed, id: "c")
        _ = try node.scheduleBuffer(tone, at: 4_800, callbackType: .dataRendered, id: "r")
        _ = try node.scheduleBuffer(tone, at: 4_800, callbackType: .dataPlayedBack, id: "p")
        _ = node.player.play(atTime: 0.5)
        _ = f.render(seconds: 1)
        let c = events.completions
        #expect(c.map(\.item) == ["c", "r", "p"])
        #expect(c.allSatisfy { $0.sampleTime == 4_800 + 12_000 && !$0.cancelled })
        #expect(c[1].deviceTime == 0.5 + 0.35)  // offline: no output latency
        #expect(c[2].deviceTime == 0.5 + 0.35)
    }

    @Test func stopUnschedulesAndResetsTheTimeline() throws {
        let f = try EngineFixture()
        let events = Events(f.engine)
        let node = try f.engine.makeNode(id: "n", channels: 1)
        _ = try node.scheduleBuffer(Signals.click(at: 0, frames: 48_000), at: 24_000, callbackType: .dataRendered, id: "never")
        #expect(node.player.play())
        _ = f.render(seconds: 0.25)
        #expect(node.playerTime(forNodeTime: Int64(f.engine.deviceCurrentTime * 48_000)) == 12_000)
        node.stop()
        f.engine.poll()
        #expect(node.queue.isEmpty)
        #expect(node.player.currentTime == 0)
        #expect(events.completions.map(\.item) == ["never"] && events.completions[0].cancelled)
        _ = try node.scheduleBuffer(Signals.click(at: 100, frames: 1_000), at: 0, callbackType: .dataConsumed, id: nil)
        #expect(node.player.play())
        let out = f.render(frames: 2_000)
        #expect(Measure.onsets(out, channels: 2) == [100])
    }

    @Test func badSegmentsAreRefused() throws {
        let f = try EngineFixture()
        let node = try f.engine.makeNode(id: "n", channels: 2)
        let path = try f.wav("short", Signals.noise(frames: 1_000))
        func open() throws -> any AudioDecoder { try AudioDecoders.open(.file(path)) }
        #expect(throws: ScheduleError.self) { try node.scheduleSegment(try open(), key: path, startingFrame: -1, frameCount: nil, at: nil, callbackType: .dataConsumed, id: nil) }
        #expect(throws: ScheduleError.self) { try node.scheduleSegment(try open(), key: path, startingFrame: 10, frameCount: -5, at: nil, callbackType: .dataConsumed, id: nil) }
        #expect(throws: ScheduleError.self) { try node.scheduleSegment(try open(), key: path, startingFrame: 900, frameCount: 200, at: nil, callbackType: .dataConsumed, id: nil) }
        #expect(throws: ScheduleError.self) { try node.scheduleSegment(try open(), key: path, startingFrame: 0, frameCount: nil, at: -3, callbackType: .dataConsumed, id: nil) }
        #expect(throws: ScheduleError.self) { try node.scheduleBuffer([0, 0, 0], at: nil, callbackType: .dataConsumed, id: nil) }
        #expect(node.queue.isEmpty)
    }
}
