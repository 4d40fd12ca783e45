import AudioEngine
import Foundation
import Testing
import TestSupport

/// Volume and pan measured in the rendered output.
@Suite struct LevelTests {
    @Test func halfVolumeIsMinusSixDecibels() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("sine", Signals.sine(frequency: 1000, amplitude: 1, seconds: 1, sampleRate: 48_000)))
        p.volume = 0.5
        p.play()
        let out = f.render(seconds: 0.5)
        let peak = Measure.peak(out, channels: 2, channel: 0, frames: 4800..<24_000)
        // Mono at pan 0 is −3.01 dB per side (equal power); volume adds −6.02 dB.
        let db = Measure.dB(Double(peak)) - Measure.dB(cos(Double.pi / 4))
        #expect(abs(db - (-6.02)) < 0.05, "measured \(db) dB")
    }

    @Test func volumeChangeRampsAndSettlesExactly() throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("dc", [Float](repeating: 0.5, count: 48_000)))
        p.pan = -1
        p.play()
        _ = f.render(frames: 1024)
        p.volume = 0.25
        let out = Measure.channel(f.render(frames: 2048), channels: 2, 0)
        var largestStep: Float = 0
        for i in 1..<out.count { largestStep = max(largestStep, abs(out[i] - out[i - 1])) }
        #expect(largestStep < 0.5 * 0.75 / 200, "a 5 ms ramp moves at most 1/240 of the change per frame")
        #expect(out[2047] == 0.125)
    }

    @Test(arguments: [-1.0, -0.5, 0.0, 0.5, 1.0])
    func panFollowsTheStereoPannerLawForMono(pan: Double) throws {
        let f = try EngineFixture()
        let p = try f.player(try f.wav("dc", [Float](repeating: 0.5, count: 48_000)))
        p.pan = pan
        p.play()
        let out = f.render(seconds: 0.1)
        let x = (pan + 1) / 2
        #expect(abs(Double(out[2000 * 2]) - 0.5 * cos(x * .pi / 2)) < 1e-5)
        #expect(abs(Double(out[2000 * 2 + 1]) - 0.5 * sin(x * .pi / 2)) < 1e-5)
    }

    @Test(arguments: [-1.0, -0.5, 0.0, 0.5, 1.0])
    func panFollowsTheStereoPannerLawForStereo(pan: Double) throws {
        let f = try EngineFixture()
        var samples = [Float](repeating: 0, count: 96_000)
        for i in 0..<48_000 { samples[2 * i] = 0.4; samples[2 * i + 1] = 0.2 }
        let p = try f.player(try f.wav("lr", samples, channels: 2))
        p.pan = pan
        p.play()
        let out = f.render(seconds: 0.1)
        let (l, r) = (0.4, 0.2)
        let expected: (Double, Double)
        if pan <= 0 {
            let x = pan + 1
            expected = (l + r * cos(x * .pi / 2), r * sin(x * .pi / 2))
        } else {
            expected = (l * cos(pan * .pi / 2), r + l * sin(pan * .pi / 2))
        }
        #expect(abs(Double(out[2000 * 2]) - expected.0) < 1e-5)
        #expect(abs(Double(out[2000 * 2 + 1]) - expected.1) < 1e-5)
    }
}
