/// The peers run in the same process run on exactly the same inputs as tonearm: `sox -m`
/// and `ffmpeg amix` producing the same 48 kHz stereo mix, and bare `mpg123` decoding of
/// each input in turn (the decode cost floor). Each is timed by wall clock and its own
/// CPU (`wait4`); a failure is reported with its stderr. Main thread.
enum PeerTools {
    static let soxName = "sox -m"
    static let ffmpegName = "ffmpeg amix"
    static let mpg123Name = "mpg123"

    /// `sox -m -v 0.5 in1 … -v 0.5 inN -r 48000 -b 16 -t wav /dev/null`: volume per input,
    /// mixed, resampled to 48 kHz (sox's rate effect, added because the output rate differs),
    /// 16-bit output with sox's default dither. sox refuses `-m` with one input, so one
    /// player runs the same command without `-m`.
    static func soxMix(inputs: [String], seconds: Double) -> ToolRun {
        var arguments = ["sox", "-V1"]
        if inputs.count > 1 { arguments.append("-m") }
        for input in inputs { arguments += ["-v", "0.5", input] }
        arguments += ["-r", "48000", "-c", "2", "-b", "16", "-t", "wav", "/dev/null"]
        return measure(ChildProcess.run(arguments), bench: "offline-mix", tool: soxName, players: inputs.count, seconds: seconds)
    }

    /// `ffmpeg -i in1 … -i inN -filter_complex amix=inputs=N:normalize=0,aresample=48000 -f null -`.
    static func ffmpegMix(inputs: [String], seconds: Double) -> ToolRun {
        var arguments = ["ffmpeg", "-nostdin", "-hide_banner", "-v", "error"]
        for input in inputs { arguments += ["-i", input] }
        arguments += ["-filter_complex", "amix=inputs=\(inputs.count):normalize=0,aresample=48000", "-ac", "2", "-f", "null", "-"]
        return measure(ChildProcess.run(arguments), bench: "offline-mix", tool: ffmpegName, players: inputs.count, seconds: seconds)
    }

    /// `mpg123 -q -w /dev/null in` for every input, one after another; times are summed.
    static func mpg123Decode(inputs: [String], seconds: Double) -> ToolRun {
        var run = ToolRun(bench: "decode", tool: mpg123Name, players: inputs.count, audioSeconds: seconds)
        for input in inputs {
            let result = ChildProcess.run(["mpg123", "-q", "-w", "/dev/null", input])
            guard result.succeeded else {
                run.failure = result.failureDescription
                return run
            }
            run.wallSeconds += result.wallSeconds
            run.cpuSeconds += result.cpuSeconds
        }
        run.extra = [("processes", .int(inputs.count))]
        return run
    }

    private static func measure(_ result: ChildResult, bench: String, tool: String, players: Int, seconds: Double) -> ToolRun {
        var run = ToolRun(bench: bench, tool: tool, players: players, audioSeconds: seconds)
        guard result.succeeded else {
            run.failure = result.failureDescription
            return run
        }
        run.wallSeconds = result.wallSeconds
        run.cpuSeconds = result.cpuSeconds
        return run
    }
}
