import AudioCore
import Foundation
import AudioOutput
import Testing
import TestSupport

/// The real ALSA code path, through the ALSA `pulse` plugin into a PulseAudio null sink
/// (started by Tests/Fixtures/start-pulse.sh). Serialized: they share one server.
@Suite("ALSASink (through PulseAudio's null sink)", .serialized)
struct ALSASinkTests {
    let format = AudioFormat(sampleRate: 48000, channels: 2)

    @Test("Writes to ALSA `pulse` are paced by the device, latency is sane, a stall is an xrun")
    func pulsePlayback() throws {
        do {
            try PulseAudioServer.ensureRunning()
        } catch {
            Issue.record("PulseAudio could not be started for the ALSA test: \(error)")
            return
        }
        let sink = ALSASink(device: "pulse", format: format, periodFrames: 1024, periods: 4)
        try sink.open()
        defer { sink.close() }
        #expect(sink.format.channels == 2)
        #expect(sink.format.sampleRate == 48000)
        #expect(sink.periodFrames > 0 && sink.bufferFrames >= sink.periodFrames)
        print("ALSA pulse: \(sink.sampleFormat.map(String.init(describing:)) ?? "?"), period \(sink.periodFrames), buffer \(sink.bufferFrames) frames")

        let period = sink.periodFrames
        let signal = Signals.sine(frequency: 440, amplitude: 0.2, seconds: 4, sampleRate: 48000, channels: 2)
        // Write 4 s and time each write's return. PulseAudio's null sink sleeps up to its
        // 2 s idle latency before it notices a new stream, so the start stalls for a random
        // 0–2 s; judge the pace on the last second, when the stream is surely running.
        let total = signal.count / 2 / period
        var returned = [UInt64](repeating: 0, count: total)
        var maxLatency = 0.0
        let start = MonotonicClock.nanoseconds()
        try signal.withUnsafeBufferPointer { p in
            for i in 0..<total {
                try sink.write(p.baseAddress! + i * period * 2, frames: period)
                returned[i] = MonotonicClock.nanoseconds()
                maxLatency = max(maxLatency, sink.outputLatency)
            }
        }
        let window = 48000 / period
        let elapsed = Double(returned[total - 1] - returned[total - 1 - window]) / 1e9
        let written = Double(window * period) / 48000
        let longest = zip(returned.dropFirst(), returned).map { Double($0 - $1) / 1e9 }.max() ?? 0
        print("ALSA pulse: 4 s written in \(Double(returned[total - 1] - start) / 1e9) s (longest block \(longest) s); the last \(written) s took \(elapsed) s; latency after the last write \(sink.outputLatency) s, max \(maxLatency) s; xruns \(sink.xruns)")
        // (PulseAudio's pace is only roughly real time on these VMs; keep the bounds loose.)
        #expect(elapsed > written * 0.6 && elapsed < written * 1.8, "\(elapsed) s for \(written) s of audio")
        #expect(maxLatency <= Double(sink.bufferFrames) / 48000 + 0.5)
        #expect(sink.outputLatency > 0 && sink.outputLatency < 2, "latency \(sink.outputLatency)")
        #expect(maxLatency <= Double(sink.bufferFrames) / 48000 + 0.5)

        let before = sink.xruns
        MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 1_000_000_000)
        try signal.withUnsafeBufferPointer { p in
            for i in 0..<8 { try sink.write(p.baseAddress! + i * period * 2, frames: period) }
        }
        print("ALSA pulse: xruns after a 1 s stall: \(sink.xruns - before)")
        #expect(sink.xruns >= before + 1, "a 1 s stall was not counted as an underrun")
    }

    @Test("A nonexistent device fails open quickly with openFailed naming the device and the call")
    func missingDevice() {
        let sink = ALSASink(device: "hw:99,0", format: format)
        let start = MonotonicClock.nanoseconds()
        do {
            try sink.open()
            Issue.record("hw:99,0 opened")
        } catch let error as OutputError {
            #expect(error.kind == .openFailed)
            #expect(error.message.contains("'hw:99,0'") && error.message.contains("snd_pcm_open"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(MonotonicClock.nanoseconds() - start < 2_000_000_000)
        let silence = [Float](repeating: 0, count: 2)
        #expect(throws: OutputError.self) { try sink.write(silence, frames: 1) }
        sink.close()
    }
}

extension ALSASinkTests {
    @Test("A device that stops making progress makes write throw deviceLost after the stall timeout, not hang")
    func stalledDevice() throws {
        let shared: String
        let privateServer: (server: String, pid: Int32)
        do {
            shared = try PulseAudioServer.ensureRunning()
            privateServer = try PulseAudioServer.startPrivate(directory: "/tmp/tonearm-pulse-stall-\(getpid())")
        } catch {
            Issue.record("PulseAudio could not be started for the ALSA stall test: \(error)")
            return
        }
        defer {
            kill(privateServer.pid, SIGCONT)
            kill(privateServer.pid, SIGTERM)
            usleep(200_000)
            try? FileManager.default.removeItem(atPath: "/tmp/tonearm-pulse-stall-\(getpid())")
            try? FileManager.default.removeItem(atPath: "/tmp/tonearm-pulse-stall-\(getpid()).lock")
        }
        setenv("PULSE_SERVER", privateServer.server, 1)
        let sink = ALSASink(device: "pulse", format: format, periodFrames: 1024, periods: 4)
        defer { setenv("PULSE_SERVER", shared, 1) }
        try sink.open()
        let silence = [Float](repeating: 0, count: 1024 * 2)
        try silence.withUnsafeBufferPointer { p in
            for _ in 0..<8 { try sink.write(p.baseAddress!, frames: 1024) }
        }
        #expect(kill(privateServer.pid, SIGSTOP) == 0)
        let start = MonotonicClock.nanoseconds()
        var thrown: OutputError?
        silence.withUnsafeBufferPointer { p in
            for _ in 0..<200 {  // ≈ 4 s of audio; must fail well before that is needed
                do { try sink.write(p.baseAddress!, frames: 1024) } catch let error as OutputError {
                    thrown = error
                    return
                } catch { return }
            }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        print("ALSA stall: \(thrown?.description ?? "no error") after \(elapsed) s")
        #expect(thrown?.kind == .deviceLost)
        #expect(thrown?.message.contains("no progress") == true)
        #expect(elapsed >= Double(sink.stallTimeoutMilliseconds) / 1000 * 0.9)
        #expect(elapsed < Double(sink.stallTimeoutMilliseconds) / 1000 + 2)
        kill(privateServer.pid, SIGCONT)
        let closeStart = MonotonicClock.nanoseconds()
        sink.close()
        #expect(MonotonicClock.nanoseconds() - closeStart < 3_000_000_000)
    }
}

@Suite("ALSASampleFormat conversion")
struct ALSASampleFormatTests {
    @Test("Float to S16/S32: scaled, rounded, clipped; float passes bits through")
    func convert() {
        let input: [Float] = [0, 0.5, -0.5, 1, -1, 2, -2, .nan, 1.0 / 32768]
        var s16 = [Int16](repeating: 7, count: input.count)
        var s32 = [Int32](repeating: 7, count: input.count)
        var f32 = [Float](repeating: 7, count: input.count)
        s16.withUnsafeMutableBytes { ALSASampleFormat.s16.convert(input, count: input.count, into: $0.baseAddress!) }
        s32.withUnsafeMutableBytes { ALSASampleFormat.s32.convert(input, count: input.count, into: $0.baseAddress!) }
        f32.withUnsafeMutableBytes { ALSASampleFormat.float32.convert(input, count: input.count, into: $0.baseAddress!) }
        #expect(s16 == [0, 16384, -16384, 32767, -32768, 32767, -32768, 0, 1])
        #expect(s32 == [0, 1 << 30, -(1 << 30), Int32.max, Int32.min, Int32.max, Int32.min, 0, 65536])
        #expect(zip(f32, input).allSatisfy { $0.bitPattern == $1.bitPattern })
    }
}
