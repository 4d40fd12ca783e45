import Foundation
import JSON
import Testing
import TestSupport

/// /api/v1/nodes (AVAudioPlayerNode scheduling) and /api/v1/render over HTTP.
@Suite struct NodesAPITests {
    @Test func scheduleFilesUploadsAndPCMAndReadTheQueue() throws {
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000))
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: server.mediaRoot + "/notes.wav"))
        try server.start()
        let created = try server.request("POST", "/api/v1/nodes", json: #"{"id": "seq", "volume": 0.5, "pan": -0.25}"#)
        #expect(created.status == 201)
        #expect(created.header("Location") == "/api/v1/nodes/seq")
        let node = try JSONValue.parse(created.body)
        #expect(node["channels"]?.intValue == 2 && node["sampleRate"]?.intValue == 48_000)
        #expect(node["volume"]?.doubleValue == 0.5 && node["state"]?.stringValue == "idle" && node["playerTime"]?.isNull == true)

        let first = try server.request("POST", "/api/v1/nodes/seq/schedule",
                                       json: #"{"url": "file://\#(tone)", "startingFrame": 0, "frameCount": 12000, "at": null, "id": "a"}"#)
        #expect(first.status == 201, "\(first.text)")
        let second = try server.json("POST", "/api/v1/nodes/seq/schedule", json: #"{"url": "file://\#(tone)", "startingFrame": 12000, "callbackType": "dataRendered"}"#, expect: 201)
        #expect(second["sampleTime"]?.intValue == 12_000 && second["length"]?.intValue == 36_000)
        let at = try server.json("POST", "/api/v1/nodes/seq/schedule", json: #"{"url": "file://\#(tone)", "at": {"sampleTime": 96000}}"#, expect: 201)
        #expect(at["sampleTime"]?.intValue == 96_000)
        // Uploaded sound bytes and raw float32 PCM (the node's format: stereo, 48 kHz).
        try WAVFile.write(Signals.click(at: 10, frames: 480), sampleRate: 48_000, channels: 1, to: server.directory + "/up.wav", float: false)
        let upload = [UInt8](try Data(contentsOf: URL(fileURLWithPath: server.directory + "/up.wav")))
        let up = try server.request("POST", "/api/v1/nodes/seq/schedule?sampleTime=200000&callbackType=dataPlayedBack", body: upload,
                                    headers: ["Content-Type": "audio/wav"])
        #expect(up.status == 201, "\(up.text)")
        var pcm: [UInt8] = []
        for sample in [Float](repeating: 0.25, count: 960) { withUnsafeBytes(of: sample.bitPattern.littleEndian) { pcm += $0 } }
        let buffer = try server.request("POST", "/api/v1/nodes/seq/schedule?id=pcm", body: pcm, headers: ["Content-Type": "application/octet-stream"])
        #expect(buffer.status == 201, "\(buffer.text)")
        #expect(try JSONValue.parse(buffer.body)["length"]?.intValue == 480)
        let queue = try server.json("GET", "/api/v1/nodes/seq")["queue"]?.arrayValue ?? []
        #expect(queue.compactMap { $0["sampleTime"]?.intValue } == [0, 12_000, 96_000, 200_000, 200_480])

        // Bad requests: 4xx problems naming the field, and nothing is scheduled.
        let bad: [(String, Int, String)] = [
            (#"{"url": "file://\#(tone)", "startingFrame": -1}"#, 422, "startingFrame"),
            (#"{"url": "file://\#(tone)", "frameCount": -5}"#, 422, "frameCount"),
            (#"{"url": "file://\#(tone)", "startingFrame": 40000, "frameCount": 9000}"#, 422, "frameCount"),
            (#"{"url": "file://\#(tone)", "at": {"sampleTime": -3}}"#, 422, "sampleTime"),
            (#"{"url": "file://\#(tone)", "at": {"hostTime": 3}}"#, 422, "at.sampleTime"),
            (#"{"url": "file://\#(tone)", "callbackType": "whenever"}"#, 422, "callbackType"),
            (#"{"url": "file://\#(server.mediaRoot)/notes.wav"}"#, 422, "url"),
            (#"{"url": "file:///etc/passwd"}"#, 403, "media root"),
            (#"{"startingFrame": 0}"#, 422, "url or player"),
        ]
        for (body, status, mention) in bad {
            let r = try server.request("POST", "/api/v1/nodes/seq/schedule", json: body)
            #expect(r.status == status, "\(body) → \(r.status) \(r.text)")
            #expect(r.header("Content-Type") == "application/problem+json")
            #expect(r.text.contains(mention), "\(body) → \(r.text)")
        }
        let odd = try server.request("POST", "/api/v1/nodes/seq/schedule", body: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], headers: ["Content-Type": "application/octet-stream"])
        #expect(odd.status == 422)
        #expect(try server.request("POST", "/api/v1/nodes/ghost/schedule", json: #"{"url": "file://\#(tone)"}"#).status == 404)
        #expect(try server.request("PATCH", "/api/v1/nodes/seq", json: #"{"numberOfLoops": 2}"#).status == 422)
        #expect(try server.json("GET", "/api/v1/nodes/seq")["queue"]?.arrayValue?.count == 5)

        // Play: player time runs; conversions go both ways; stop clears the queue and resets to 0.
        try server.json("POST", "/api/v1/nodes/seq/play")
        usleep(400_000)
        let playing = try server.json("GET", "/api/v1/nodes/seq?nodeSampleTime=0")
        let playerTime = try #require(playing["playerTime"]?["sampleTime"]?.intValue)
        #expect(playerTime > 9_600 && playerTime < 48_000)
        let nodeZero = try #require(playing["conversion"]?["playerSampleTime"]?.intValue)
        let back = try server.json("GET", "/api/v1/nodes/seq?playerSampleTime=\(nodeZero)")
        #expect(back["conversion"]?["nodeSampleTime"]?.intValue == 0)
        let stopped = try server.json("POST", "/api/v1/nodes/seq/stop")
        #expect(stopped["queue"]?.arrayValue?.isEmpty == true)
        #expect(stopped["state"]?.stringValue == "stopped" && stopped["playerTime"]?.isNull == true)
        try server.json("POST", "/api/v1/nodes/seq/play")
        usleep(200_000)
        let again = try #require(try server.json("GET", "/api/v1/nodes/seq")["playerTime"]?["sampleTime"]?.intValue)
        #expect(again < 24_000, "the timeline restarts at 0 after stop")
        #expect(try server.request("DELETE", "/api/v1/nodes/seq").status == 204)
        #expect(try server.json("GET", "/api/v1/nodes")["nodes"]?.arrayValue?.isEmpty == true)
    }

    @Test func theThreeCallbackTypesFireInOrderEachAtItsMoment() throws {
        let server = try ServerProcess()
        try server.start()
        let events = try SSEReader(server: server, query: "?progress=0")
        var pcm: [UInt8] = []
        for sample in Signals.sine(frequency: 330, amplitude: 0.3, seconds: 0.3, sampleRate: 48_000, channels: 2) {
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { pcm += $0 }
        }
        for type in ["dataConsumed", "dataRendered", "dataPlayedBack"] {
            try server.json("POST", "/api/v1/nodes", json: #"{"id": "\#(type.lowercased())"}"#, expect: 201)
            let r = try server.request("POST", "/api/v1/nodes/\(type.lowercased())/schedule?callbackType=\(type)&id=\(type.lowercased())", body: pcm,
                                       headers: ["Content-Type": "application/octet-stream"])
            #expect(r.status == 201)
        }
        let started = try server.json("POST", "/api/v1/play", json: #"{"nodes": ["dataconsumed", "datarendered", "dataplayedback"], "delay": 0.3}"#)
        let startTime = try #require(started["startTime"]?.doubleValue)
        let completed = try events.collect(seconds: 5) { $0.event == "node.completed" && $0.data["item"]?.stringValue == "dataplayedback" }
            .filter { $0.event == "node.completed" }
        #expect(completed.compactMap { $0.data["item"]?.stringValue } == ["dataconsumed", "datarendered", "dataplayedback"])
        #expect(completed.allSatisfy { $0.data["cancelled"]?.boolValue == false && $0.data["sampleTime"]?.intValue == 14_400 })
        let times = completed.compactMap { $0.data["deviceTime"]?.doubleValue }
        try #require(times.count == 3)
        let end = (startTime * 48_000).rounded() / 48_000 + 0.3
        #expect(times[0] < end, "consumed: decoded before it plays")
        #expect(abs(times[1] - end) < 1e-9, "rendered: the device time of the last frame's end, \(times[1]) vs \(end)")
        let latency = try #require(try server.json("GET", "/api/v1/device")["outputLatency"]?.doubleValue)
        #expect(times[2] > times[1] && times[2] - times[1] < 0.2, "played back: rendered plus the output latency (\(latency) s now)")
    }

    @Test func theOfflineRenderEqualsTheRealTimeWAV() throws {
        let server = try ServerProcess()
        let noise = Signals.noise(frames: 44_100, channels: 2, amplitude: 0.3, seed: 11)
        try WAVFile.write(noise, sampleRate: 44_100, channels: 2, to: server.directory + "/noise.wav", float: false)
        let mp3 = server.mediaRoot + "/noise.mp3"
        try Shell.run(["lame", "--quiet", "-b", "192", server.directory + "/noise.wav", mp3])
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 523.25, amplitude: 0.4, seconds: 0.5, sampleRate: 48_000))
        try server.start()
        let nodes = [
            ("a", #"{"id": "a", "volume": 0.5, "pan": -0.3}"#, [
                #"{"url": "file://\#(mp3)", "startingFrame": 0, "frameCount": 20000}"#,
                #"{"url": "file://\#(mp3)", "startingFrame": 20000}"#,
                #"{"url": "file://\#(tone)", "at": {"sampleTime": 30000}, "callbackType": "dataRendered"}"#,
            ]),
            ("b", #"{"id": "b", "pan": 0.6, "channels": 1}"#, [#"{"url": "file://\#(tone)", "at": {"sampleTime": 12345}}"#]),
        ]
        var spec: [String] = []
        for (id, create, items) in nodes {
            try server.json("POST", "/api/v1/nodes", json: create, expect: 201)
            for item in items { try server.json("POST", "/api/v1/nodes/\(id)/schedule", json: item, expect: 201) }
            spec.append(String(create.dropLast()) + #", "schedule": [\#(items.joined(separator: ","))]}"#)
        }
        let render = try server.request("POST", "/api/v1/render", json: #"{"duration": 1.5, "format": "wav", "nodes": [\#(spec.joined(separator: ","))]}"#)
        #expect(render.status == 200, "\(render.text)")
        #expect(render.header("Content-Type") == "audio/wav")
        try Data(render.body).write(to: URL(fileURLWithPath: server.directory + "/render.wav"))
        let offline = try WAVFile.read(server.directory + "/render.wav")
        #expect(offline.frames == 72_000)

        try server.json("POST", "/api/v1/play", json: #"{"nodes": ["a", "b"], "delay": 0.2}"#)
        usleep(2_000_000)
        server.stop()
        let realtime = try WAVFile.read(server.wavPath)
        func firstSound(_ s: [Float]) -> Int? { s.firstIndex { $0 != 0 }.map { $0 / 2 } }
        let o = try #require(firstSound(offline.samples))
        let r = try #require(firstSound(realtime.samples))
        #expect(o == 0)
        let frames = min(offline.frames, realtime.frames - r)
        #expect(frames > 60_000)
        let a = Array(offline.samples[0..<frames * 2]), b = Array(realtime.samples[r * 2..<(r + frames) * 2])
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(frames * 2) samples differ")
        #expect(Measure.rms(a, channels: 2, channel: 0, frames: 0..<frames) > 0.05)

        // FLAC: the same render, 24-bit.
        try server.start()
        let flac = try server.request("POST", "/api/v1/render", json: #"{"duration": 0.5, "format": "flac", "nodes": [{"schedule": [{"url": "file://\#(tone)"}]}]}"#)
        #expect(flac.status == 200)
        #expect(flac.header("Content-Type") == "audio/flac")
        #expect(Array(flac.body.prefix(4)) == Array("fLaC".utf8))
        let bad = try server.request("POST", "/api/v1/render", json: #"{"duration": 1, "nodes": [{"schedule": [{"url": "file://\#(tone)", "startingFrame": -4}]}]}"#)
        #expect(bad.status == 422)
        #expect(bad.text.contains("nodes[0].schedule[0]"), "\(bad.text)")
    }
}
