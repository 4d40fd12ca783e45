import AudioCore
import AudioDecoding
import AudioEngine
import Synchronization

/// Tonearm's offline mix: N players of the inputs at volume 0.5, panned across −1…1, rendered
/// by an offline engine into a 48 kHz stereo mix in chunks into one reused buffer (nothing is
/// kept). Times the whole job — engine, opening the files, rendering, shutdown — by wall clock
/// and process CPU. Main thread.
enum OfflineMixBench {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)
    static let periodFrames = 1024
    static let chunkFrames = 8192
    static let decodeThreads = 2

    /// Renders `seconds` of the mix of `inputs` (one player each), with every player's
    /// metering on when `metering` is true.
    static func run(inputs: [String], seconds: Double, metering: Bool = false) -> ToolRun {
        var run = ToolRun(bench: "offline-mix", tool: "tonearm", players: inputs.count, audioSeconds: seconds)
        let decodeErrors = Mutex<[String]>([])
        let start = CPUTime.now()
        var peak: Float = 0
        var meterLevel: Double?
        do {
            let engine = Engine(offlineFormat: format, periodFrames: periodFrames,
                                maximumPlayers: max(256, inputs.count), decodeThreads: decodeThreads)
            defer { engine.shutdown() }
            engine.setEventHandler { event in
                if case let .decodeError(id, message) = event { decodeErrors.withLock { $0.append("\(id): \(message)") } }
            }
            var players: [Player] = []
            for (i, path) in inputs.enumerated() {
                let player = try engine.makePlayer(id: "p\(i)", input: .file(path))
                player.volume = 0.5
                player.pan = inputs.count == 1 ? 0 : -1 + 2 * Double(i) / Double(inputs.count - 1)
                if metering { player.meteringEnabled = true }
                players.append(player)
            }
            guard engine.play(players, atTime: 0).ok else {
                throw BenchError("the engine could not start the players together")
            }
            peak = render(engine, frames: Int((seconds * Double(format.sampleRate)).rounded()))
            if metering, let level = players.first?.averagePower(forChannel: 0) {
                meterLevel = level
            }
            engine.poll()
            players.removeAll()
        } catch {
            run.failure = String(describing: error)
            return run
        }
        (run.wallSeconds, run.cpuSeconds) = CPUTime.now().since(start)
        run.extra = [("decode_threads", .int(decodeThreads)), ("period_frames", .int(periodFrames)),
                     ("peak", .number(Double(peak))), ("metering", .bool(metering))]
        if let meterLevel { run.extra.append(("meter_avg_dbfs", .number(meterLevel))) }
        let errors = decodeErrors.withLock { $0 }
        if !errors.isEmpty {
            run.failure = "decode errors: " + errors.prefix(3).joined(separator: "; ")
        } else if peak < 1e-3 {
            run.failure = "the mix is silent (peak \(peak)): the players did not play"
        }
        return run
    }

    /// Renders `frames` frames in chunks into one buffer; returns the peak of a sample of chunks.
    private static func render(_ engine: Engine, frames: Int) -> Float {
        let channels = format.channels
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * channels)
        defer { buffer.deallocate() }
        var done = 0
        var chunk = 0
        var peak: Float = 0
        while done < frames {
            let n = min(chunkFrames, frames - done)
            engine.render(frames: n, into: buffer)
            if chunk % 32 == 1 {  // a cheap look at the output now and then
                for i in 0..<(n * channels) { peak = max(peak, abs(buffer[i])) }
            }
            done += n
            chunk += 1
        }
        return peak
    }
}
