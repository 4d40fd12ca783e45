import Foundation
import JSON
import Testing
import TestSupport

/// Session categories, interruptions, ducking, remote commands and now playing (issue 6).
@Suite struct SessionAPITests {
    /// Collects events until `music` has been interrupted, its interruption ended and it plays again.
    private func untilResumed(_ events: SSEReader, id: String, seconds: Double = 8) throws -> [SSEReader.Event] {
        var ended = false
        return try events.collect(seconds: seconds) { e in
            if e.event == "player.interruption", e.data["id"]?.stringValue == id, e.data["type"]?.stringValue == "ended" { ended = true }
            return ended && e.event == "player.state" && e.data["id"]?.stringValue == id && e.data["state"]?.stringValue == "playing"
        }
    }

    private func pausedAt(_ seen: [SSEReader.Event], id: String) -> Double? {
        seen.first { $0.event == "player.state" && $0.data["id"]?.stringValue == id && $0.data["state"]?.stringValue == "paused" }?
            .data["currentTime"]?.doubleValue
    }

    private func resumedAt(_ seen: [SSEReader.Event], id: String) -> Double? {
        seen.last { $0.event == "player.state" && $0.data["id"]?.stringValue == id && $0.data["state"]?.stringValue == "playing" }?
            .data["currentTime"]?.doubleValue
    }

    @Test func aPlaybackPlayerInterruptsAndTheOtherResumesWhereItWas() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 5, sampleRate: 48_000))
        let alert = try server.addSound("alert.wav", Signals.sine(frequency: 880, amplitude: 0.3, seconds: 0.5, sampleRate: 48_000))
        try server.start()
        let created = try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)"}"#, expect: 201)
        #expect(created["category"]?.stringValue == "soloAmbient")
        #expect(created["categoryOptions"]?.arrayValue?.isEmpty == true)
        #expect(created["resumeAfterInterruption"]?.boolValue == true)
        #expect(created["duckDB"]?.doubleValue == -15)
        try server.json("PUT", "/api/v1/players/bed", json: #"{"url": "file://\#(music)", "category": "playback", "categoryOptions": ["mixWithOthers"]}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/rain", json: #"{"url": "file://\#(music)", "category": "ambient"}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/alert", json: #"{"url": "file://\#(alert)", "category": "playback"}"#, expect: 201)
        let events = try SSEReader(server: server, query: "?progress=0")
        try server.json("POST", "/api/v1/play", json: #"{"players": ["music", "bed", "rain"]}"#)
        usleep(700_000)
        try server.json("POST", "/api/v1/players/alert/play")
        #expect(try server.json("GET", "/api/v1/players/music")["state"]?.stringValue == "paused")
        #expect(try server.json("GET", "/api/v1/players/bed")["playing"]?.boolValue == true, "mixWithOthers is not interrupted")
        #expect(try server.json("GET", "/api/v1/players/rain")["playing"]?.boolValue == true, "ambient is not interrupted")
        let seen = try untilResumed(events, id: "music")
        let interruptions = seen.filter { $0.event == "player.interruption" }
        #expect(interruptions.map { $0.data["id"]?.stringValue ?? "" } == ["music", "music"])
        #expect(interruptions.first?.data["type"]?.stringValue == "began")
        #expect(interruptions.last?.data["shouldResume"]?.boolValue == true)
        #expect(seen.contains { $0.event == "player.finished" && $0.data["id"]?.stringValue == "alert" })
        let paused = try #require(pausedAt(seen, id: "music"))
        let resumed = try #require(resumedAt(seen, id: "music"))
        #expect(paused > 0.5 && paused < 1.5, "paused at \(paused)")
        #expect(abs(resumed - paused) <= 0.05, "paused at \(paused), resumed at \(resumed)")
        #expect(try server.json("GET", "/api/v1/players/music")["playing"]?.boolValue == true)
    }

    @Test func anExternalInterruptionPausesAndResumesThePlayersThatDoNotMix() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 5, sampleRate: 48_000))
        try server.start()
        try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)", "category": "playback"}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/stay", json: #"{"url": "file://\#(music)", "resumeAfterInterruption": false}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/mix", json: #"{"url": "file://\#(music)", "categoryOptions": ["mixWithOthers"]}"#, expect: 201)
        let events = try SSEReader(server: server, query: "?progress=0")
        try server.json("POST", "/api/v1/play", json: #"{"players": ["music", "stay", "mix"]}"#)
        usleep(600_000)
        let began = try server.json("POST", "/api/v1/session/interruption", json: #"{"type": "began"}"#)
        #expect(began["players"]?.arrayValue?.compactMap(\.stringValue).sorted() == ["music", "stay"])
        #expect(try server.json("GET", "/api/v1/players/music")["state"]?.stringValue == "paused")
        #expect(try server.json("GET", "/api/v1/players/mix")["playing"]?.boolValue == true)
        usleep(400_000)
        let ended = try server.json("POST", "/api/v1/session/interruption", json: #"{"type": "ended"}"#)
        #expect(ended["players"]?.arrayValue?.compactMap(\.stringValue).sorted() == ["music", "stay"])
        let seen = try untilResumed(events, id: "music")
        let paused = try #require(pausedAt(seen, id: "music"))
        let resumed = try #require(resumedAt(seen, id: "music"))
        #expect(abs(resumed - paused) <= 0.05, "paused at \(paused), resumed at \(resumed)")
        #expect(try server.json("GET", "/api/v1/players/music")["playing"]?.boolValue == true)
        #expect(try server.json("GET", "/api/v1/players/stay")["state"]?.stringValue == "paused", "resumeAfterInterruption: false")
        let isStayEnded = { (e: SSEReader.Event) in
            e.event == "player.interruption" && e.data["id"]?.stringValue == "stay" && e.data["type"]?.stringValue == "ended"
        }
        let more = seen.contains(where: isStayEnded) ? [] : try events.collect(seconds: 3, until: isStayEnded)
        let stayEnded = (seen + more).first { $0.event == "player.interruption" && $0.data["id"]?.stringValue == "stay" && $0.data["type"]?.stringValue == "ended" }
        #expect(stayEnded?.data["shouldResume"]?.boolValue == true)
        #expect(try server.request("POST", "/api/v1/session/interruption", json: #"{"type": "maybe"}"#).status == 422)
    }

    @Test func duckOthersLowersTheOthersAndRestoresThem() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 5, sampleRate: 48_000))
        let voice = try server.addSound("voice.wav", Signals.sine(frequency: 880, amplitude: 0.3, seconds: 1, sampleRate: 48_000))
        try server.start()
        try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)", "volume": 0.8}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/voice", json: #"{"url": "file://\#(voice)", "categoryOptions": ["duckOthers"], "duckDB": -20}"#, expect: 201)
        try server.json("POST", "/api/v1/players/music/play")
        usleep(300_000)
        try server.json("POST", "/api/v1/players/voice/play")
        usleep(500_000)
        let ducked = try #require(try server.json("GET", "/api/v1/players/music")["volume"]?.doubleValue)
        #expect(abs(ducked - 0.08) < 0.005, "ducked to \(ducked)")
        #expect(try server.json("GET", "/api/v1/players/music")["playing"]?.boolValue == true, "duckOthers mixes")
        usleep(1_600_000)
        let restored = try #require(try server.json("GET", "/api/v1/players/music")["volume"]?.doubleValue)
        #expect(abs(restored - 0.8) < 0.001, "restored to \(restored)")
    }

    @Test func remoteCommandsAndNowPlaying() throws {
        let server = try ServerProcess()
        let music = try server.addSound("music.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 60, sampleRate: 48_000))
        try server.start()
        let idle = try server.json("GET", "/api/v1/nowplaying")
        #expect(idle["id"]?.isNull == true)
        #expect(idle["state"]?.stringValue == "idle")
        try server.json("PUT", "/api/v1/players/music", json: #"{"url": "file://\#(music)"}"#, expect: 201)
        let playing = try server.json("POST", "/api/v1/players/music/command", json: #"{"command": "togglePlayPause"}"#)
        #expect(playing["playing"]?.boolValue == true)
        let skipped = try server.json("POST", "/api/v1/players/music/command", json: #"{"command": "skipForward"}"#)
        let afterSkip = try #require(skipped["currentTime"]?.doubleValue)
        #expect(afterSkip >= 15 && afterSkip < 15.5, "\(afterSkip)")
        let back = try server.json("POST", "/api/v1/players/music/command", json: #"{"command": "skipBackward", "interval": 10}"#)
        let afterBack = try #require(back["currentTime"]?.doubleValue)
        #expect(afterBack >= 5 && afterBack < 5.5, "\(afterBack)")
        let now = try server.json("GET", "/api/v1/nowplaying")
        #expect(now["id"]?.stringValue == "music")
        #expect(now["state"]?.stringValue == "playing")
        #expect(now["duration"]?.doubleValue == 60)
        let position = try #require(now["position"]?.doubleValue)
        #expect(position >= 5 && position < 6)
        let stamp = try #require(now["positionUpdatedAt"]?.stringValue)
        #expect(stamp.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil, "\(stamp)")
        let paused = try server.json("POST", "/api/v1/players/music/command", json: #"{"command": "togglePlayPause"}"#)
        #expect(paused["state"]?.stringValue == "paused")
        #expect(try server.json("GET", "/api/v1/nowplaying")["state"]?.stringValue == "paused")
        #expect(try server.request("POST", "/api/v1/players/music/command", json: #"{"command": "eject"}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/players/nobody/command", json: #"{"command": "skipForward"}"#).status == 404)
        // Session settings are validated, changeable and persisted.
        #expect(try server.request("PATCH", "/api/v1/players/music", json: #"{"category": "loud"}"#).status == 422)
        #expect(try server.request("PATCH", "/api/v1/players/music", json: #"{"categoryOptions": ["duckEverything"]}"#).status == 422)
        let patched = try server.json("PATCH", "/api/v1/players/music", json: #"{"category": "ambient", "resumeAfterInterruption": false}"#)
        #expect(patched["category"]?.stringValue == "ambient")
        server.stop()
        let again = try ServerProcess(directory: server.directory)
        try again.start()
        let restored = try again.json("GET", "/api/v1/players/music")
        #expect(restored["category"]?.stringValue == "ambient")
        #expect(restored["resumeAfterInterruption"]?.boolValue == false)
    }
}
