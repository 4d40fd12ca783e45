import AudioOutput
import Testing

/// The pacing arithmetic, driven by a simulated clock (no sleeping, so exact).
@Suite("DevicePacer (simulated clock)")
struct DevicePacerTests {
    let rate = 48000
    let period = 256

    @Test("The buffer fills without blocking, then each write waits for exactly one period to play")
    func fillsThenBlocks() {
        var pacer = DevicePacer(sampleRate: rate, bufferFrames: period * 4)
        let t0: UInt64 = 5_000_000_000
        for i in 0..<4 {
            let step = pacer.plan(frames: period, now: t0 + UInt64(i) * 1000)
            #expect(step == DevicePacer.Step(underrun: false, wakeAt: nil))
        }
        let step = pacer.plan(frames: period, now: t0 + 10_000)
        #expect(step.underrun == false)
        // The fifth period fits once the first has played: 256 / 48000 s after the start.
        #expect(step.wakeAt == t0 + (256 * 1_000_000_000 + 47999) / 48000)
        #expect(pacer.fill(at: step.wakeAt!) == 4 * period)
    }

    @Test("Deadlines come from the start time and the frame count: no drift over an hour, however late each wake-up")
    func noDrift() {
        var pacer = DevicePacer(sampleRate: 44100, bufferFrames: 512 * 3)
        let t0: UInt64 = 123_456_789
        var now = t0
        var jitter: UInt64 = 0
        let writes = 3600 * 44100 / 512
        var lastWake: UInt64 = 0
        for i in 0..<writes {
            let step = pacer.plan(frames: 512, now: now)
            #expect(!step.underrun)
            if let wake = step.wakeAt {
                lastWake = wake
                // Wake up late by 0…199 µs, as a loaded machine would.
                jitter = (jitter &* 6364136223846793005 &+ 1442695040888963407)
                now = wake + (jitter >> 33) % 200_000
            }
            if i % 100_000 == 0 { #expect(pacer.fill(at: now) <= 512 * 3) }
        }
        // The last write had to wait until frame (writes − 3) × 512 had played — exactly on the grid.
        let frame = UInt64((writes - 3) * 512)
        let expected = t0 + (frame * 1_000_000_000 + 44099) / 44100
        #expect(lastWake == expected, "drift \(Int64(lastWake) - Int64(expected)) ns")
    }

    @Test("A write after the buffer ran empty is an underrun and restarts the clock")
    func underrun() {
        var pacer = DevicePacer(sampleRate: rate, bufferFrames: period * 2)
        let t0: UInt64 = 1_000_000_000
        _ = pacer.plan(frames: period, now: t0)
        _ = pacer.plan(frames: period, now: t0)
        // 2 periods = 10.67 ms of audio; write again just before they have played: no underrun.
        let early = pacer.plan(frames: period, now: t0 + 10_000_000)
        #expect(!early.underrun)
        // Now stall for 50 ms: the device played everything and more.
        let late = pacer.plan(frames: period, now: t0 + 60_000_000)
        #expect(late.underrun)
        #expect(late.wakeAt == nil)
        #expect(pacer.startNanoseconds == t0 + 60_000_000)
        #expect(pacer.fill(at: t0 + 60_000_000) == period)
    }

    @Test("Writes larger than the buffer wait until the part that does not fit has played")
    func oversizedWrite() {
        var pacer = DevicePacer(sampleRate: 1000, bufferFrames: 100)
        let step = pacer.plan(frames: 250, now: 0)
        #expect(step.wakeAt == 150_000_000)
    }
}
