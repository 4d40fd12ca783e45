import Foundation
import JSON
import Testing
import TestSupport

/// The SSE feed of SPEC 4.
@Suite struct EventsAPITests {
    @Test func stateEventsInOrderOneFinishedAfterTheLoopsAndProgress() throws {
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 0.4, sampleRate: 48_000))
        try server.start()
        let events = try SSEReader(server: server, query: "?progress=0.2&players=p")
        try server.json("PUT", "/api/v1/players/p", json: #"{"url": "file://\#(tone)", "numberOfLoops": 2}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/other", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        try server.json("POST", "/api/v1/players/p/play")
        let seen = try events.collect(seconds: 5) { $0.event == "player.finished" }
        let ids = seen.compactMap(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "ids increase: \(ids)")
        let kinds = seen.map(\.event)
        #expect(kinds.first == "player.created")
        #expect(kinds.filter { $0 == "player.finished" }.count == 1)
        #expect(seen.allSatisfy { $0.data["id"]?.stringValue == "p" }, "the players filter holds")
        #expect(seen.last?.data["successfully"]?.boolValue == true)
        // 3 passes of 0.4 s with progress every 0.2 s: about 6 progress events.
        let progress = seen.filter { $0.event == "player.progress" }
        #expect((4...8).contains(progress.count), "\(progress.count) progress events")
        let states = seen.filter { $0.event == "player.state" }.compactMap { $0.data["state"]?.stringValue }
        #expect(states.first == "prepared" || states.first == "playing")
        #expect(states.last == "finished")
    }

    @Test func aReconnectWithLastEventIDReplaysWhatWasMissed() throws {
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000))
        try server.start()
        let first = try SSEReader(server: server, query: "?progress=0")
        try server.json("PUT", "/api/v1/players/a", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        let created = try #require(try first.next())
        #expect(created.event == "player.created")
        first.client.shutdownNow()
        // While disconnected:
        try server.json("PATCH", "/api/v1/players/a", json: #"{"volume": 0.3}"#)
        try server.json("PUT", "/api/v1/players/b", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        let second = try SSEReader(server: server, query: "?progress=0", lastEventID: created.id)
        let replayed = try second.collect(seconds: 3) { $0.event == "player.created" }
        #expect(replayed.map(\.event) == ["player.updated", "player.created"])
        #expect(replayed.first?.data["volume"]?.doubleValue == 0.3)
        #expect(replayed.compactMap(\.id).allSatisfy { $0 > created.id! })
    }

    @Test func badOptionsAreRefused() throws {
        let server = try ServerProcess()
        try server.start()
        #expect(try server.request("GET", "/api/v1/events?progress=-1").status == 422)
        #expect(try server.request("GET", "/api/v1/events?meters=abc").status == 422)
    }
}
