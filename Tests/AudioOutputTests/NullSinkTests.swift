import AudioCore
import AudioOutput
import Testing

@Suite("NullSink (clock-paced silent device)")
struct NullSinkTests {
    let format = AudioFormat(sampleRate: 48000, channels: 2)

    @Test("Writing one second of periods takes about one second")
    func pacesRealTime() throws {
        let sink = NullSink(format: format, periodFrames: 256, periods: 4)
        try sink.open()
        defer { sink.close() }
        let silence = [Float](repeating: 0, count: 256 * 2)
        // The first four periods fill the buffer at once; 4 + 187.5 periods = 1 s of waiting.
        let writes = 4 + 48000 / 256
        let start = MonotonicClock.nanoseconds()
        try silence.withUnsafeBufferPointer { p in
            for _ in 0..<writes { try sink.write(p.baseAddress!, frames: 256) }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        let expected = Double((writes - 4) * 256) / 48000
        print("NullSink: \(writes) writes took \(elapsed) s, expected \(expected) s (error \((elapsed - expected) * 1000) ms)")
        #expect(elapsed > expected * 0.9 && elapsed < expected * 1.3, "\(elapsed) s for \(expected) s of audio")
        #expect(sink.xruns == 0)
    }

    @Test("Latency is the buffer fill: within the buffer, at least periods − 1 periods right after a write")
    func latencyWithinBuffer() throws {
        let sink = NullSink(format: format, periodFrames: 480, periods: 3)
        try sink.open()
        defer { sink.close() }
        #expect(sink.outputLatency == 0)
        let silence = [Float](repeating: 0, count: 480 * 2)
        try silence.withUnsafeBufferPointer { p in
            for _ in 0..<20 {
                try sink.write(p.baseAddress!, frames: 480)
                #expect(sink.outputLatency <= 0.030 + 1e-9)
            }
        }
        // Right after a blocking write the buffer is close to full (3 periods = 30 ms).
        #expect(sink.outputLatency > 0.015, "\(sink.outputLatency)")
        #expect(sink.periodFrames == 480)
        #expect(sink.description == OutputDescription(kind: "null", name: "null"))
    }

    @Test("A stall longer than the buffer is counted as an underrun and the clock restarts")
    func stallCountsXrun() throws {
        let sink = NullSink(format: format, periodFrames: 256, periods: 2)
        try sink.open()
        defer { sink.close() }
        let silence = [Float](repeating: 0, count: 256 * 2)
        try silence.withUnsafeBufferPointer { p in
            for _ in 0..<10 { try sink.write(p.baseAddress!, frames: 256) }
            #expect(sink.xruns == 0)
            MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 100_000_000)  // 100 ms ≫ 10.7 ms buffer
            try sink.write(p.baseAddress!, frames: 256)
            #expect(sink.xruns == 1)
            // After the restart it paces normally again.
            for _ in 0..<10 { try sink.write(p.baseAddress!, frames: 256) }
            #expect(sink.xruns == 1)
        }
    }
}
