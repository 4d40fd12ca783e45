import Foundation
import JSON
import Testing
import TestSupport

/// Creating players and driving their transport over HTTP.
@Suite struct PlayersAPITests {
    @Test func createFromAPathAndDriveEveryTransportCall() throws {
        let server = try ServerProcess()
        let path = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 3, sampleRate: 48_000))
        try server.start()
        let r = try server.request("POST", "/api/v1/players", json: #"{"url": "file://\#(path)", "id": "tone", "volume": 0.8}"#)
        #expect(r.status == 201)
        #expect(r.header("Location") == "/api/v1/players/tone")
        let player = try JSONValue.parse(r.body)
        #expect(player["state"]?.stringValue == "idle")
        #expect(player["volume"]?.doubleValue == 0.8)
        #expect(player["duration"]?.doubleValue == 3)
        #expect(player["settings"]?["formatID"]?.stringValue == "wav")
        #expect(player["url"]?.stringValue == URL(fileURLWithPath: path).absoluteString)
        #expect(player["hasData"]?.boolValue == false)

        #expect(try server.json("POST", "/api/v1/players/tone/prepare")["ok"]?.boolValue == true)
        #expect(try server.json("GET", "/api/v1/players/tone")["state"]?.stringValue == "prepared")
        let playing = try server.json("POST", "/api/v1/players/tone/play")
        #expect(playing["playing"]?.boolValue == true)
        #expect(playing["lateBy"]?.doubleValue == 0)
        usleep(300_000)
        let paused = try server.json("POST", "/api/v1/players/tone/pause")
        #expect(paused["state"]?.stringValue == "paused")
        let position = try #require(paused["currentTime"]?.doubleValue)
        #expect(position > 0.15 && position < 1)
        let faded = try server.json("POST", "/api/v1/players/tone/fade", json: #"{"volume": 0.2, "duration": 0.5}"#)
        #expect(faded["id"]?.stringValue == "tone")
        let stopped = try server.json("POST", "/api/v1/players/tone/stop")
        #expect(stopped["state"]?.stringValue == "stopped")
        #expect(stopped["currentTime"]?.doubleValue == position)
        let patched = try server.json("PATCH", "/api/v1/players/tone", json: #"{"pan": -0.5, "numberOfLoops": 2, "currentTime": 1.5}"#)
        #expect(patched["pan"]?.doubleValue == -0.5)
        #expect(patched["numberOfLoops"]?.intValue == 2)
        #expect(patched["currentTime"]?.doubleValue == 1.5)
        let list = try server.json("GET", "/api/v1/players")
        #expect(list["players"]?.arrayValue?.count == 1)
        #expect(try server.request("DELETE", "/api/v1/players/tone").status == 204)
        #expect(try server.request("GET", "/api/v1/players/tone").status == 404)
    }

    @Test func createFromAnUploadAndReadArtworkAndTags() throws {
        let server = try ServerProcess()
        try server.start()
        let dir = server.directory
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 44_100), sampleRate: 44_100, channels: 1,
                          to: dir + "/up.wav", float: false)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)
        try Data(png).write(to: URL(fileURLWithPath: dir + "/cover.png"))
        try Shell.run(["lame", "--quiet", "-b", "128", "--tt", "Upload Title", "--ta", "Someone", "--ti", dir + "/cover.png", dir + "/up.wav", dir + "/up.mp3"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/up.mp3")))
        let r = try server.request("POST", "/api/v1/players?id=upload", body: bytes, headers: ["Content-Type": "audio/mpeg"])
        #expect(r.status == 201, "\(r.text)")
        let player = try JSONValue.parse(r.body)
        #expect(player["hasData"]?.boolValue == true)
        #expect(player["url"]?.isNull == true)
        #expect(player["metadata"]?["title"]?.stringValue == "Upload Title")
        #expect(player["metadata"]?["artist"]?.stringValue == "Someone")
        #expect(player["metadata"]?["artworkURL"]?.stringValue == "/api/v1/players/upload/artwork")
        let art = try server.request("GET", "/api/v1/players/upload/artwork")
        #expect(art.status == 200)
        #expect(art.header("Content-Type") == "image/png")
        #expect(art.body == png)
        #expect(FileManager.default.fileExists(atPath: server.stateDirectory + "/uploads/upload.audio"))
        let played = try server.json("POST", "/api/v1/players/upload/play", json: #"{"delay": 0.1}"#)
        #expect(played["startTime"]?.doubleValue != nil)
        // A non-audio upload is refused and nothing is kept.
        let bad = try server.request("POST", "/api/v1/players?id=junk", body: Array("hello".utf8), headers: ["Content-Type": "audio/wav"])
        #expect(bad.status == 422)
        #expect(!FileManager.default.fileExists(atPath: server.stateDirectory + "/uploads/junk.audio"))
    }

    @Test func putCreatesThenReplacesIdempotently() throws {
        let server = try ServerProcess()
        let a = try server.addSound("a.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000))
        let b = try server.addSound("b.wav", Signals.sine(frequency: 660, amplitude: 0.5, seconds: 2, sampleRate: 48_000))
        try server.start()
        #expect(try server.request("PUT", "/api/v1/players/x", json: #"{"url": "file://\#(a)", "volume": 0.5}"#).status == 201)
        let again = try server.request("PUT", "/api/v1/players/x", json: #"{"url": "file://\#(a)", "volume": 0.5}"#)
        #expect(again.status == 200)
        let replaced = try server.request("PUT", "/api/v1/players/x", json: #"{"url": "file://\#(b)"}"#)
        #expect(replaced.status == 201)
        #expect(try JSONValue.parse(replaced.body)["duration"]?.doubleValue == 2)
        #expect(try server.json("GET", "/api/v1/players")["players"]?.arrayValue?.count == 1)
        // Library paths (as /api/v1/media lists them) work as url too.
        let media = try server.json("GET", "/api/v1/media")
        let root = try #require(media["entries"]?[0]?["name"]?.stringValue)
        let listing = try server.json("GET", "/api/v1/media?path=\(root)")
        let names = listing["entries"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names == ["a.wav", "b.wav"])
        #expect(listing["entries"]?[1]?["duration"]?.doubleValue == 2)
        #expect(try server.request("PUT", "/api/v1/players/y", json: #"{"url": "\#(root)/a.wav"}"#).status == 201)
    }
}
