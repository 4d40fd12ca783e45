import AudioCore
import AudioDecoding
import AudioDSP
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 4's time-stretch target: the engine's `TimeStretcher` against the `soundstretch`
/// command on the same 48 kHz stereo WAV (so nothing is resampled), at the same tempo, in
/// the same run. Both sides do the same whole job — read the WAV, stretch, write 16-bit PCM
/// to /dev/null — and that is what is judged (CPU time, the fastest of a few repeats each).
/// For reference, the stretcher's own CPU (timed per call) is compared with soundstretch
/// minus a WAV copy by `sox` (an estimate of soundstretch's I/O). `soundstretch -tempo=0` is
/// run too, to show it is not an I/O baseline: SoundTouch still runs WSOLA at tempo 1.
/// Main thread.
enum StretchBench {
    static let target = 1.5
    static let repeats = 3
    static let blockFrames = 4096
    static let sampleRate = 48_000

    /// One tonearm pass.
    private struct Pass {
        var wall = 0.0
        var cpu = 0.0
        var stretchCPU = 0.0
        var outputFrames = 0
        var inputFrames = 0
    }

    static func run(source: String, workDirectory: String, seconds: Double, rate: Double, progress: (String) -> Void) -> BenchResult {
        let percent = String(format: "%g", ((rate - 1) * 100 * 1000).rounded() / 1000)
        var result = BenchResult(bench: "stretch",
                                 title: "Time-stretch at rate \(rate): \(Int(seconds.rounded())) s of 48 kHz stereo WAV, TimeStretcher vs soundstretch -tempo=\(percent) (best of \(repeats))")
        do {
            let wav = try makeWAV(from: source, in: workDirectory, seconds: seconds)
            _ = FileManager.default.contents(atPath: wav)  // page cache

            progress("  tonearm TimeStretcher…")
            var best: Pass?
            for _ in 0..<repeats {
                let pass = try stretch(wav, rate: rate)
                if best == nil || pass.cpu < best!.cpu { best = pass }
            }
            let ours = best!

            progress("  soundstretch…")
            func fastest(_ arguments: [String]) throws(BenchError) -> ChildResult {
                var fastest: ChildResult?
                for _ in 0..<repeats {
                    let run = ChildProcess.run(arguments)
                    guard run.succeeded else { throw BenchError(run.failureDescription) }
                    if fastest == nil || run.cpuSeconds < fastest!.cpuSeconds { fastest = run }
                }
                return fastest!
            }
            let theirs = try fastest(["soundstretch", wav, "/dev/null", "-tempo=\(percent)"])
            let tempo1 = try fastest(["soundstretch", wav, "/dev/null", "-tempo=0"])
            let copy = try fastest(["sox", "-V1", wav, "-t", "wav", "/dev/null"])

            let audio = Double(ours.inputFrames) / Double(sampleRate)
            let expectedOutput = Double(ours.inputFrames) / rate
            result.lines.append(result.line([
                ("tool", .string("tonearm")), ("ok", .bool(true)), ("rate", .number(rate)), ("audio_s", .number(audio)),
                ("wall_s", .number(ours.wall)), ("cpu_s", .number(ours.cpu)), ("stretch_cpu_s", .number(ours.stretchCPU)),
                ("output_frames", .int(ours.outputFrames)), ("expected_output_frames", .number(expectedOutput.rounded())),
                ("stream_core_share", .number(ours.stretchCPU / audio)),
            ]))
            for (tool, run) in [("soundstretch -tempo=\(percent)", theirs), ("soundstretch -tempo=0", tempo1), ("sox wav copy", copy)] {
                result.lines.append(result.line([("tool", .string(tool)), ("ok", .bool(true)), ("audio_s", .number(audio)),
                                                 ("wall_s", .number(run.wallSeconds)), ("cpu_s", .number(run.cpuSeconds))]))
            }
            func cells(_ name: String, _ wall: Double, _ cpu: Double, _ note: String = "") -> String {
                name.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(format: "wall %7.3f s  cpu %7.3f s  %6.0fx realtime", wall, cpu, audio / max(cpu, 1e-9)) + note
            }
            result.table.append(cells("tonearm (read+stretch+write)", ours.wall, ours.cpu))
            result.table.append(cells("tonearm TimeStretcher only", ours.stretchCPU, ours.stretchCPU,
                                      String(format: "  (%.3f%% of a core per stream)", ours.stretchCPU / audio * 100)))
            result.table.append(cells("soundstretch -tempo=\(percent)", theirs.wallSeconds, theirs.cpuSeconds))
            result.table.append(cells("soundstretch -tempo=0", tempo1.wallSeconds, tempo1.cpuSeconds, "  (not an I/O baseline)"))
            result.table.append(cells("sox wav copy", copy.wallSeconds, copy.cpuSeconds, "  (I/O estimate)"))
            result.table.append(String(format: "output %d frames, expected %.0f", ours.outputFrames, expectedOutput))
            if abs(Double(ours.outputFrames) - expectedOutput) > Double(sampleRate) / 10 {
                result.failure = "the stretcher wrote \(ours.outputFrames) frames, expected about \(Int(expectedOutput))"
                return result
            }
            result.checks.append(RatioCheck(what: "stretch cpu tonearm/soundstretch", players: 1, value: ours.cpu / theirs.cpuSeconds,
                                            target: target, goal: .atMost, alwaysJudged: true))
            let theirStretch = theirs.cpuSeconds - copy.cpuSeconds
            result.checks.append(RatioCheck(what: "stretch-only cpu tonearm/(soundstretch-sox)", players: 1,
                                            value: theirStretch > 0 ? ours.stretchCPU / theirStretch : .nan,
                                            target: nil, goal: .atMost))
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }

    /// `seconds` of `source` as a 48 kHz 16-bit stereo WAV, cached in `directory`.
    private static func makeWAV(from source: String, in directory: String, seconds: Double) throws(BenchError) -> String {
        let path = "\(directory)/stretch-48k-\(Int(seconds.rounded()))s.wav"
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 44 { return path }
        let temporary = path + ".partial.wav"
        let run = ChildProcess.run(["sox", "-V1", source, "-r", "48000", "-c", "2", "-b", "16", temporary,
                                    "trim", "0", String(format: "%.3f", seconds)])
        guard run.succeeded, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw BenchError("making \(path) failed: \(run.failureDescription)")
        }
        return path
    }

    /// Reads `wav`, stretches it to `rate` and writes 16-bit PCM to /dev/null, timing this
    /// thread's CPU for the whole and for the stretcher calls alone.
    private static func stretch(_ wav: String, rate: Double) throws -> Pass {
        let decoder = try AudioDecoders.open(.file(wav))
        let channels = decoder.settings.numberOfChannels
        guard decoder.settings.sampleRate == sampleRate else {
            throw BenchError("\(wav) is at \(decoder.settings.sampleRate) Hz, not \(sampleRate)")
        }
        let stretcher = try TimeStretcher(channels: channels, sampleRate: sampleRate, tempo: rate)
        let outputCapacity = blockFrames * 4
        let input = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outputCapacity * channels)
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: outputCapacity * channels)
        defer { input.deallocate(); output.deallocate(); pcm.deallocate() }
        let sink = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard sink >= 0 else { throw BenchError("cannot open /dev/null") }
        defer { close(sink) }

        var pass = Pass()
        let start = CPUTime.now().wall
        let startCPU = threadCPU()
        var stretchNs: UInt64 = 0
        while true {
            let n = try decoder.read(into: input, frames: blockFrames)
            if n == 0 { break }
            pass.inputFrames += n
            let t = threadCPU()
            stretcher.put(input, frames: n)
            stretchNs += threadCPU() - t
            drainTimed(&stretchNs, stretcher: stretcher, output: output, capacity: outputCapacity, channels: channels,
                       pcm: pcm, sink: sink, frames: &pass.outputFrames)
        }
        let t = threadCPU()
        stretcher.finish()
        stretchNs += threadCPU() - t
        drainTimed(&stretchNs, stretcher: stretcher, output: output, capacity: outputCapacity, channels: channels,
                   pcm: pcm, sink: sink, frames: &pass.outputFrames)
        pass.cpu = Double(threadCPU() - startCPU) / 1e9
        pass.wall = CPUTime.now().wall - start
        pass.stretchCPU = Double(stretchNs) / 1e9
        return pass
    }

    /// Takes every ready frame from the stretcher (timing `receive` into `stretchNs`),
    /// converts it to 16-bit PCM and writes it.
    private static func drainTimed(_ stretchNs: inout UInt64, stretcher: TimeStretcher, output: UnsafeMutablePointer<Float>,
                                   capacity: Int, channels: Int, pcm: UnsafeMutablePointer<Int16>, sink: Int32,
                                   frames: inout Int) {
        while true {
            let t = threadCPU()
            let n = stretcher.receive(into: output, maximumFrames: capacity)
            stretchNs += threadCPU() - t
            if n == 0 { return }
            for i in 0..<(n * channels) {
                pcm[i] = Int16(max(-32768, min(32767, (output[i] * 32768).rounded())))
            }
            _ = write(sink, pcm, n * channels * 2)
            frames += n
        }
    }

    /// This thread's CPU time, ns.
    private static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
