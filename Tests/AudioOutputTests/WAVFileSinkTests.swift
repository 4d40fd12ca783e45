import AudioCore
import AudioOutput
import Foundation
import Testing
import TestSupport

/// The 58-byte header WAVFileSink writes: (RIFF size, format tag, channels, rate, bits, data size).
private func header(_ path: String) throws -> (riff: Int, format: Int, channels: Int, rate: Int, bits: Int, data: Int, fileSize: Int) {
    let d = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    func u32(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 | Int(d[o + 2]) << 16 | Int(d[o + 3]) << 24 }
    func u16(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 }
    func tag(_ o: Int) -> String { String(decoding: d[o..<o + 4], as: UTF8.self) }
    #expect(tag(0) == "RIFF" && tag(8) == "WAVE" && tag(12) == "fmt " && tag(38) == "fact" && tag(50) == "data")
    #expect(u32(46) * u16(32) == u32(54), "fact frame count agrees with the data size")
    return (u32(4), u16(20), u16(22), u32(24), u16(34), u32(54), d.count)
}

@Suite("WAVFileSink (plays into a float WAV file)")
struct WAVFileSinkTests {
    @Test("Every sample written comes back exactly, with a valid IEEE-float header")
    func roundTrip() throws {
        let dir = try Shell.temporaryDirectory()
        let path = dir + "/out.wav"
        let format = AudioFormat(sampleRate: 44100, channels: 2)
        let sink = WAVFileSink(path: path, format: format, periodFrames: 300, periods: 4, paced: false)
        let signal = Signals.noise(frames: 300 * 500, channels: 2, amplitude: 0.9)
        try sink.open()
        try signal.withUnsafeBufferPointer { p in
            for i in 0..<500 { try sink.write(p.baseAddress! + i * 600, frames: 300) }
        }
        sink.close()
        sink.close()  // idempotent
        let h = try header(path)
        #expect(h.format == 3 && h.channels == 2 && h.rate == 44100 && h.bits == 32)
        #expect(h.data == signal.count * 4)
        #expect(h.riff == h.fileSize - 8)
        let back = try WAVFile.read(path)
        #expect(back.sampleRate == 44100 && back.channels == 2)
        #expect(back.samples == signal)
        #expect(sink.description == OutputDescription(kind: "wav", name: path))
    }

    @Test("The header is valid mid-run: it is patched about every second of audio")
    func validMidRun() throws {
        let dir = try Shell.temporaryDirectory()
        let path = dir + "/live.wav"
        let format = AudioFormat(sampleRate: 8000, channels: 1)
        let sink = WAVFileSink(path: path, format: format, periodFrames: 100, periods: 4, paced: false)
        let signal = Signals.sine(frequency: 440, amplitude: 0.5, seconds: 3.2, sampleRate: 8000)
        try sink.open()
        defer { sink.close() }
        let h0 = try header(path)
        #expect(h0.data == 0 && h0.riff == 50)
        try signal.withUnsafeBufferPointer { p in
            for i in 0..<250 { try sink.write(p.baseAddress! + i * 100, frames: 100) }
        }
        // Not closed: the header describes what reached the disk at the last patch (3 s of 3.125).
        let h = try header(path)
        #expect(h.data >= 3 * 8000 * 4 && h.data % 4 == 0)
        #expect(58 + h.data <= h.fileSize)
        #expect(h.riff == 50 + h.data)
        let back = try WAVFile.read(path)
        #expect(back.samples.count == h.data / 4)
        #expect(Array(signal[0..<back.samples.count]) == back.samples)
    }

    @Test("Paced mode keeps real time like NullSink")
    func paced() throws {
        let dir = try Shell.temporaryDirectory()
        let path = dir + "/paced.wav"
        let sink = WAVFileSink(path: path, format: AudioFormat(sampleRate: 48000, channels: 2), periodFrames: 480, periods: 2)
        let signal = Signals.sine(frequency: 1000, amplitude: 0.5, seconds: 0.3, sampleRate: 48000, channels: 2)
        try sink.open()
        let start = MonotonicClock.nanoseconds()
        try signal.withUnsafeBufferPointer { p in
            for i in 0..<30 { try sink.write(p.baseAddress! + i * 960, frames: 480) }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        #expect(sink.outputLatency > 0 && sink.outputLatency <= 0.020 + 1e-9)
        sink.close()
        // 30 periods of 10 ms, the first 2 fill the buffer at once: 280 ms.
        #expect(elapsed > 0.25 && elapsed < 0.45, "\(elapsed) s")
        #expect(sink.xruns == 0)
        #expect(try WAVFile.read(path).samples == signal)
    }

    @Test("A file that cannot be created fails open with openFailed")
    func openFails() {
        let sink = WAVFileSink(path: "/nonexistent-dir-\(UInt32.random(in: 0...UInt32.max))/x.wav",
                               format: AudioFormat(sampleRate: 48000, channels: 2))
        do {
            try sink.open()
            Issue.record("open succeeded")
        } catch let error as OutputError {
            #expect(error.kind == .openFailed)
            #expect(error.message.contains("No such file or directory"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
        let silence = [Float](repeating: 0, count: 2)
        #expect(throws: OutputError.self) { try sink.write(silence, frames: 1) }
    }
}
