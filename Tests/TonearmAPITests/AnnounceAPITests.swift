import Foundation
import JSON
import Testing
import TestSupport

/// POST /api/v1/announce (issue 6, item 2), end to end on --output wav:PATH.
@Suite struct AnnounceAPITests {
    /// A stereo sine with signal only in `channel` (0 left, 1 right).
    private func oneSided(frequency: Double, amplitude: Double, seconds: Double, channel: Int) -> [Float] {
        let mono = Signals.sine(frequency: frequency, amplitude: amplitude, seconds: seconds, sampleRate: 48_000)
        var out = [Float](repeating: 0, count: mono.count * 2)
        for (i, v) in mono.enumerated() { out[i * 2 + channel] = v }
        return out
    }

    /// Waits until `id` is gone (the announcement removed itself).
    private func waitUntilGone(_ server: ServerProcess, _ id: String, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try server.request("GET", "/api/v1/players/\(id)").status == 404 { return }
            usleep(50_000)
        }
        Issue.record("\(id) was not removed")
    }

    @Test func duckLowersTheMusicFromTheAnnouncementsFirstSampleAndRestoresIt() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", oneSided(frequency: 440, amplitude: 0.4, seconds: 8, channel: 0), channels: 2)
        let voice = try server.addSound("voice.wav", oneSided(frequency: 1_000, amplitude: 0.5, seconds: 1, channel: 1), channels: 2)
        try server.start()
        try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)"}"#, expect: 201)
        try server.json("POST", "/api/v1/players/music/play")
        usleep(600_000)
        let r = try server.json("POST", "/api/v1/announce", json: #"{"url": "file://\#(voice)", "mode": "duck", "duckDB": -12}"#, expect: 202)
        #expect(r["id"]?.stringValue == "announce-1")
        #expect(r["position"]?.intValue == 0)
        #expect(r["startTime"]?.doubleValue != nil)
        #expect(try server.json("GET", "/api/v1/players/announce-1")["category"]?.stringValue == "playback")
        try waitUntilGone(server, "announce-1")
        usleep(900_000)
        #expect(try server.json("GET", "/api/v1/players/music")["volume"]?.doubleValue == 1)
        server.stop()

        let wav = try WAVFile.read(server.wavPath)
        let s = wav.samples
        let onset = try #require(Measure.onset(s, channels: 2, channel: 1, threshold: 0.01))
        let window = 2_400
        let before = Measure.rms(s, channels: 2, channel: 0, frames: (onset - 480 - window)..<(onset - 480))
        let ducked = Measure.rms(s, channels: 2, channel: 0, frames: (onset + 256)..<(onset + 256 + window))
        let firstPeriod = Measure.rms(s, channels: 2, channel: 0, frames: onset..<(onset + 256))
        let end = onset + 48_000
        let after = Measure.rms(s, channels: 2, channel: 0, frames: (end + 36_000)..<(end + 36_000 + window))
        let duckedDB = Measure.dB(ducked / before)
        let firstDB = Measure.dB(firstPeriod / before)
        let afterDB = Measure.dB(after / before)
        print("announce duck: before \(Measure.dB(before)) dBFS, ducked \(duckedDB) dB from onset+256, first period \(firstDB) dB, restored \(afterDB) dB")
        #expect(Measure.dB(before) > -12, "the music plays at full level before: \(Measure.dB(before))")
        #expect(abs(duckedDB - (-12)) <= 0.5, "ducked by \(duckedDB) dB")
        #expect(abs(firstDB - (-12)) <= 0.5, "the duck has landed on the first sample: \(firstDB) dB")
        #expect(abs(afterDB) <= 0.5, "restored to \(afterDB) dB")
    }

    @Test func interruptPausesTheMusicAndResumesItWhereItWas() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", oneSided(frequency: 440, amplitude: 0.4, seconds: 8, channel: 0), channels: 2)
        let voice = try server.addSound("voice.wav", oneSided(frequency: 1_000, amplitude: 0.5, seconds: 0.5, channel: 1), channels: 2)
        try server.start()
        try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)"}"#, expect: 201)
        let events = try SSEReader(server: server, query: "?progress=0")
        try server.json("POST", "/api/v1/players/music/play")
        usleep(700_000)
        try server.json("POST", "/api/v1/announce", json: #"{"url": "file://\#(voice)", "mode": "interrupt"}"#, expect: 202)
        #expect(try server.json("GET", "/api/v1/players/music")["state"]?.stringValue == "paused")
        var ended = false
        let seen = try events.collect(seconds: 8) { e in
            if e.event == "player.interruption", e.data["id"]?.stringValue == "music", e.data["type"]?.stringValue == "ended" { ended = true }
            return ended && e.event == "player.state" && e.data["id"]?.stringValue == "music" && e.data["state"]?.stringValue == "playing"
        }
        let paused = try #require(seen.first { $0.event == "player.state" && $0.data["id"]?.stringValue == "music" && $0.data["state"]?.stringValue == "paused" }?
            .data["currentTime"]?.doubleValue)
        let resumed = try #require(seen.last { $0.event == "player.state" && $0.data["id"]?.stringValue == "music" && $0.data["state"]?.stringValue == "playing" }?
            .data["currentTime"]?.doubleValue)
        #expect(abs(resumed - paused) <= 0.05, "paused at \(paused), resumed at \(resumed)")
        #expect(seen.contains { $0.event == "player.finished" && $0.data["id"]?.stringValue == "announce-1" })
        try waitUntilGone(server, "announce-1")
        #expect(try server.json("GET", "/api/v1/players/music")["playing"]?.boolValue == true)
    }

    @Test func announcementsQueueInOrder() throws {
        let server = try ServerProcess()
        let one = try server.addSound("one.wav", oneSided(frequency: 1_000, amplitude: 0.5, seconds: 0.4, channel: 1), channels: 2)
        let two = try server.addSound("two.wav", oneSided(frequency: 600, amplitude: 0.5, seconds: 0.4, channel: 0), channels: 2)
        try server.start()
        let events = try SSEReader(server: server, query: "?progress=0")
        let first = try server.json("POST", "/api/v1/announce", json: #"{"url": "file://\#(one)", "mode": "mix"}"#, expect: 202)
        let second = try server.json("POST", "/api/v1/announce", json: #"{"url": "file://\#(two)", "mode": "mix", "volume": 0.5}"#, expect: 202)
        #expect(first["position"]?.intValue == 0 && first["startTime"]?.doubleValue != nil)
        #expect(second["id"]?.stringValue == "announce-2")
        #expect(second["position"]?.intValue == 1 && second["startTime"]?.isNull == true)
        let seen = try events.collect(seconds: 8) { e in e.event == "player.deleted" && e.data["id"]?.stringValue == "announce-2" }
        func index(_ event: String, _ id: String, state: String? = nil) -> Int? {
            seen.firstIndex { $0.event == event && $0.data["id"]?.stringValue == id && (state == nil || $0.data["state"]?.stringValue == state) }
        }
        let finished1 = try #require(index("player.finished", "announce-1"))
        let deleted1 = try #require(index("player.deleted", "announce-1"))
        let started2 = try #require(index("player.state", "announce-2", state: "scheduled"))
        #expect(finished1 < started2 && deleted1 < started2, "the second starts after the first finished")
        #expect(index("player.deleted", "announce-2") != nil)
        server.stop()
        let s = try WAVFile.read(server.wavPath).samples
        let a = try #require(Measure.onset(s, channels: 2, channel: 1, threshold: 0.01))
        let b = try #require(Measure.onset(s, channels: 2, channel: 0, threshold: 0.01))
        #expect(b >= a + 19_200, "the second (at \(b)) starts after the first (at \(a)) has played its 0.4 s")
        #expect(!FileManager.default.fileExists(atPath: server.stateDirectory + "/players/announce-1.json"))
    }

    @Test func uploadsAndErrors() throws {
        let server = try ServerProcess()
        let voice = try server.addSound("voice.wav", oneSided(frequency: 1_000, amplitude: 0.5, seconds: 0.3, channel: 1), channels: 2)
        try server.start()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: voice)))
        let up = try server.request("POST", "/api/v1/announce?mode=mix&volume=0.5", body: bytes, headers: ["Content-Type": "audio/wav"])
        #expect(up.status == 202, "\(up.text)")
        let id = try #require(try JSONValue.parse(up.body)["id"]?.stringValue)
        #expect(FileManager.default.fileExists(atPath: server.stateDirectory + "/tmp/\(id).audio"))
        try waitUntilGone(server, id)
        #expect(!FileManager.default.fileExists(atPath: server.stateDirectory + "/tmp/\(id).audio"), "the upload is deleted afterwards")
        let junk = try server.request("POST", "/api/v1/announce", body: Array("not audio at all".utf8), headers: ["Content-Type": "audio/wav"])
        #expect(junk.status == 422)
        #expect(try server.request("POST", "/api/v1/announce", json: #"{"url": "file://\#(voice)", "mode": "loud"}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/announce", json: #"{"url": "file://\#(voice)", "volume": 2}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/announce", json: #"{"url": "file://\#(voice)", "duckDB": 3}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/announce", json: #"{"url": "file://\#(server.mediaRoot)/missing.wav"}"#).status == 404)
        #expect(try server.request("POST", "/api/v1/announce", json: #"{"url": "file:///etc/passwd"}"#).status == 403)
        #expect(try server.request("POST", "/api/v1/announce", body: Array("x".utf8), headers: ["Content-Type": "text/plain"]).status == 415)
    }
}
