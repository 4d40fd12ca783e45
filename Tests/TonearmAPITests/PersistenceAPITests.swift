import Foundation
import JSON
import Testing
import TestSupport

/// Players and uploads survive a restart (not playing).
@Suite struct PersistenceAPITests {
    @Test func aRestartKeepsPlayersAndUploads() throws {
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 48_000))
        try server.start()
        try server.json("PUT", "/api/v1/players/file", json: #"{"url": "file://\#(tone)", "volume": 0.25, "pan": 0.5, "numberOfLoops": 3}"#, expect: 201)
        var upload = Data()
        try WAVFile.write(Signals.sine(frequency: 880, amplitude: 0.5, seconds: 1, sampleRate: 44_100, channels: 2), sampleRate: 44_100, channels: 2,
                          to: server.directory + "/up.wav", float: false)
        upload = try Data(contentsOf: URL(fileURLWithPath: server.directory + "/up.wav"))
        #expect(try server.request("PUT", "/api/v1/players/data", body: [UInt8](upload), headers: ["Content-Type": "audio/wav"]).status == 201)
        try server.json("POST", "/api/v1/players/file/play")
        usleep(200_000)
        server.stop()

        let again = try ServerProcess(directory: server.directory)
        try again.start()
        let players = try again.json("GET", "/api/v1/players")["players"]?.arrayValue ?? []
        #expect(players.compactMap { $0["id"]?.stringValue }.sorted() == ["data", "file"])
        let file = try again.json("GET", "/api/v1/players/file")
        #expect(file["volume"]?.doubleValue == 0.25)
        #expect(file["pan"]?.doubleValue == 0.5)
        #expect(file["numberOfLoops"]?.intValue == 3)
        #expect(file["playing"]?.boolValue == false)
        let data = try again.json("GET", "/api/v1/players/data")
        #expect(data["hasData"]?.boolValue == true)
        #expect(data["duration"]?.doubleValue == 1)
        #expect(try again.json("POST", "/api/v1/players/data/prepare")["ok"]?.boolValue == true)
        // DELETE removes the upload too.
        #expect(try again.request("DELETE", "/api/v1/players/data").status == 204)
        #expect(!FileManager.default.fileExists(atPath: again.stateDirectory + "/uploads/data.audio"))
    }
}
