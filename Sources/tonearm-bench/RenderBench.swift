import AudioCore
import Foundation
import JSON

/// Issue 7's offline render over HTTP: POST /api/v1/render of N nodes (one 10-minute MP3
/// each, volume 0.5, pan spread −1…1) to the release server, the WAV streamed back by curl
/// to /dev/null; timed by wall clock, with the server's CPU from /proc. `sox -m` and
/// `ffmpeg amix` mix the same inputs in the same run. Main thread.
enum RenderBench {
    /// The issue's target: at least this many times real time.
    static let targetRealtime = 20.0

    static func run(inputs: [String], mediaRoot: String, seconds: Double, skipPeers: Bool, progress: (String) -> Void) -> BenchResult {
        var result = BenchResult(bench: "render", title: "offline render over HTTP (POST /api/v1/render), \(inputs.count) nodes")
        do {
            let server = try ServerProcess.launchTonearm(mediaRoot: mediaRoot)
            defer { server.stop() }
            let nodes = inputs.enumerated().map { i, path -> String in
                let pan = inputs.count == 1 ? 0 : -1 + 2 * Double(i) / Double(inputs.count - 1)
                return #"{"volume": 0.5, "pan": \#(pan), "schedule": [{"url": \#(JSONValue.string(path).text)}]}"#
            }
            let body = #"{"duration": \#(seconds), "format": "wav", "nodes": [\#(nodes.joined(separator: ","))]}"#
            let bodyPath = NSTemporaryDirectory() + "tonearm-bench-render-\(getpid()).json"
            try? Data(body.utf8).write(to: URL(fileURLWithPath: bodyPath))
            defer { unlink(bodyPath) }
            progress("  tonearm: POST /api/v1/render…")
            let startCPU = server.cpuSeconds ?? 0
            let curl = ChildProcess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-X", "POST",
                                         "-H", "Content-Type: application/json", "--data-binary", "@" + bodyPath,
                                         "http://127.0.0.1:\(server.port)/api/v1/render"], captureStdout: true)
            let serverCPU = (server.cpuSeconds ?? 0) - startCPU
            let answer = curl.stdout.split(separator: " ")
            guard curl.succeeded, answer.first == "200", let bytes = answer.last.flatMap({ Int($0) }) else {
                throw BenchError("the render failed: \(curl.succeeded ? curl.stdout : curl.failureDescription)")
            }
            let expected = Int((seconds * 48_000).rounded()) * 8 + 58
            guard bytes == expected else { throw BenchError("the render returned \(bytes) bytes, expected \(expected)") }
            var ours = ToolRun(bench: "render", tool: "tonearm", players: inputs.count, audioSeconds: seconds)
            ours.wallSeconds = curl.wallSeconds
            ours.cpuSeconds = serverCPU + curl.cpuSeconds
            ours.extra = [("server_cpu_s", .number(serverCPU)), ("bytes", .int(bytes))]
            var runs = [ours]
            if !skipPeers {
                for (name, peer) in [(PeerTools.soxName, PeerTools.soxMix), (PeerTools.ffmpegName, PeerTools.ffmpegMix)] {
                    progress("  \(name)…")
                    var run = peer(inputs, seconds)
                    run.bench = "render"
                    runs.append(run)
                }
            }
            for run in runs {
                result.lines.append(run.json)
                guard run.ok else { result.table.append("\(run.tool): failed: \(run.failure ?? "")"); continue }
                result.table.append(run.tool.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + String(format: "%7.1fx real time  %6.1f s wall  %6.1f cpu s  %.2f cores", run.xRealtime, run.wallSeconds,
                             run.cpuSeconds, run.coresUsed))
            }
            result.checks.append(RatioCheck(what: "render x real time (\(inputs.count) nodes)", players: inputs.count, value: ours.xRealtime,
                                            target: targetRealtime, goal: .atLeast, alwaysJudged: true))
            for peer in runs.dropFirst() where peer.ok {
                result.checks.append(RatioCheck(what: "render tonearm/\(peer.tool) speed", players: inputs.count,
                                                value: ours.xRealtime / peer.xRealtime, target: nil, goal: .atLeast))
            }
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }
}
