import Foundation
import JSON
import Testing
import TestSupport

/// Two players started together over HTTP put their clicks on the same output frame.
@Suite struct SyncAPITests {
    @Test func synchronizedStartProducesOneOnsetFrameInTheWAV() throws {
        let server = try ServerProcess()
        let click = try server.addSound("click.wav", Signals.click(at: 4_800, frames: 24_000))
        try server.start()
        try server.json("PUT", "/api/v1/players/left", json: #"{"url": "file://\#(click)", "pan": -1}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/right", json: #"{"url": "file://\#(click)", "pan": 1}"#, expect: 201)
        let started = try server.json("POST", "/api/v1/play", json: #"{"players": ["left", "right"], "delay": 0.25}"#)
        #expect(started["startTime"]?.doubleValue == 0.25)
        #expect(started["players"]?.arrayValue?.count == 2)
        usleep(1_200_000)
        #expect(try server.json("GET", "/api/v1/players/left")["state"]?.stringValue == "finished")
        server.stop()
        let wav = try WAVFile.read(server.wavPath)
        let left = try #require(Measure.onset(wav.samples, channels: 2, channel: 0))
        let right = try #require(Measure.onset(wav.samples, channels: 2, channel: 1))
        #expect(left == right)
    }

    @Test func allOrNothingWithAnUnknownPlayer() throws {
        let server = try ServerProcess()
        let click = try server.addSound("click.wav", Signals.click(at: 100, frames: 4_800))
        try server.start()
        try server.json("PUT", "/api/v1/players/a", json: #"{"url": "file://\#(click)"}"#, expect: 201)
        let r = try server.request("POST", "/api/v1/play", json: #"{"players": ["a", "ghost"], "delay": 0}"#)
        #expect(r.status == 404)
        #expect(r.text.contains("ghost"))
        #expect(try server.json("GET", "/api/v1/players/a")["state"]?.stringValue == "idle")
    }
}
