import Foundation

// tonearm-bench: the offline-mix and real-time benchmarks of the issues, with the peers
// (sox -m, ffmpeg amix, bare mpg123 decoding, wrk against a bare libmicrohttpd server,
// soundstretch) run on the same inputs in the same run, so the results are ratios on the
// same machine; plus the service-level runs (SSE cost, play latency, time-stretched real
// time, metering). JSON lines on stdout, a table on stderr.

let report = BenchReport()
let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { report.note("tonearm-bench: \(message)") }
    report.note(BenchOptions.usage)
    exit(error.message == nil ? 0 : 2)
}

var environment = JSONLine(["bench": .string("env"), "cores": .int(ProcessInfo.processInfo.activeProcessorCount)])
if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
   let first = load.split(separator: " ").first, let value = Double(first) {
    environment.append("loadavg_1m", .number(value))
}
environment.append("minutes", .number(options.minutes))
environment.append("distinct_inputs", .int(BenchInputs.distinctFiles))
environment.append("input", .string("44.1 kHz stereo MP3, CBR 192 kb/s (lame), cycled across players"))
report.emit(environment)

let inputs: BenchInputs
do {
    inputs = try BenchInputs.prepare(directory: options.inputsDirectory, seconds: options.minutes * 60, log: report.note)
} catch {
    report.note("tonearm-bench: \(error)")
    exit(1)
}
inputs.warmPageCache()

if options.runsOffline {
    for count in options.players {
        let list = inputs.list(count: count)
        report.note("offline mix, \(count) player(s)…")
        let tonearm = OfflineMixBench.run(inputs: list, seconds: inputs.seconds)
        report.add(tonearm)
        guard !options.skipPeers else { continue }
        var peers: [ToolRun] = []
        for (name, runPeer) in [(PeerTools.soxName, PeerTools.soxMix), (PeerTools.ffmpegName, PeerTools.ffmpegMix),
                                (PeerTools.mpg123Name, PeerTools.mpg123Decode)] {
            report.note("  \(name)…")
            let peer = runPeer(list, inputs.seconds)
            report.add(peer)
            peers.append(peer)
        }
        for check in RatioCheck.compare(tonearm: tonearm, peers: peers) { report.add(check) }
    }
}

if options.runsRealtime {
    report.note("real time, \(options.realtimePlayers) players for \(options.realtimeSeconds) s…")
    let result = RealtimeBench.run(inputs: inputs.list(count: options.realtimePlayers), seconds: options.realtimeSeconds,
                                   progress: report.note)
    report.add(result)
}

// The service-level runs: the server's sound is the first input (looping), under the inputs'
// folder as the media root; generated files (the bare server, the WAV) go there too.
let workDirectory = (inputs.files[0] as NSString).deletingLastPathComponent
let mediaRoot = URL(fileURLWithPath: workDirectory).resolvingSymlinksInPath().path
let serverSound = URL(fileURLWithPath: inputs.files[0]).resolvingSymlinksInPath().path

if options.runs(.http) {
    report.note("http: wrk -t2 -c\(options.httpConnections) for \(options.httpSeconds) s each…")
    report.add(HTTPBench.run(mediaRoot: mediaRoot, file: serverSound, workDirectory: workDirectory,
                             seconds: options.httpSeconds, connections: options.httpConnections, progress: report.note))
}

if options.runs(.sse) {
    report.note("sse: \(options.sseClients) clients…")
    report.add(SSEBench.run(mediaRoot: mediaRoot, file: serverSound, clients: options.sseClients,
                            seconds: options.sseSeconds, progress: report.note))
}

if options.runs(.latency) {
    report.note("latency: \(options.latencyRuns) × POST …/play to the first rendered frame…")
    report.add(PlayLatencyBench.run(mediaRoot: mediaRoot, file: serverSound, runs: options.latencyRuns, progress: report.note))
}

if options.runs(.rate) {
    report.note("real time at rate \(options.rate), \(options.realtimePlayers) players for \(options.realtimeSeconds) s…")
    let result = RealtimeBench.run(inputs: inputs.list(count: options.realtimePlayers), seconds: options.realtimeSeconds,
                                   rate: options.rate, progress: report.note)
    report.add(result)
}

if options.runs(.stretch) {
    report.note("stretch: TimeStretcher vs soundstretch at rate \(options.rate)…")
    report.add(StretchBench.run(source: inputs.files[0], workDirectory: workDirectory,
                                seconds: min(options.stretchSeconds, inputs.seconds), rate: options.rate, progress: report.note))
}

if options.runs(.metering) {
    let players = options.players.max() ?? 64
    report.note("metering: offline mix of \(players) players, off vs on…")
    report.add(MeteringBench.run(inputs: inputs.list(count: players), seconds: min(options.meteringMinutes * 60, inputs.seconds),
                                 repeats: options.meteringRepeats, progress: report.note))
}

if options.runs(.render) {
    report.note("render: POST /api/v1/render of \(options.renderNodes) nodes…")
    report.add(RenderBench.run(inputs: inputs.list(count: options.renderNodes), mediaRoot: mediaRoot, seconds: inputs.seconds,
                               skipPeers: options.skipPeers, progress: report.note))
}

report.printTable()
exit(report.hadFailures ? 1 : 0)
