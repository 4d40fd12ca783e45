import Foundation
import JSON
import Testing
import TestSupport

/// Route changes through the real ALSA path: `tonearm serve --output alsa:pulse` on a private
/// PulseAudio server that the test kills and starts again.
///
/// The server runs in its own process so that its `PULSE_SERVER` (which ALSA's pulse plugin
/// reads at every open, including the engine's reopen attempts) cannot leak into other tests
/// of this process that use the shared PulseAudio server.
@Suite struct RouteChangeAPITests {
    @Test func killingPulseAudioUnderTheServerIsARouteChangeAndItsReturnAnother() throws {
        let directory = "/tmp/tonearm-pulse-route-\(getpid())"
        var pulse: (server: String, pid: Int32)
        do {
            pulse = try PulseAudioServer.startPrivate(directory: directory)
        } catch {
            Issue.record("PulseAudio could not be started for the route-change test: \(error)")
            return
        }
        defer {
            kill(pulse.pid, SIGTERM)
            usleep(200_000)
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: directory + ".lock")
        }
        let server = try ServerProcess()
        defer { server.stop() }
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.2, seconds: 30, sampleRate: 48_000))
        try server.start(extraArguments: ["--output", "alsa:pulse", "--on-device-loss", "pause"],
                         environment: ["PULSE_SERVER": pulse.server])
        let device = try server.json("GET", "/api/v1/device")
        #expect(device["output"]?["kind"]?.stringValue == "alsa")
        #expect(device["state"]?.stringValue == "running")
        // progress=1 keeps the stream busy (paused players report progress too).
        let events = try SSEReader(server: server, query: "?progress=1")
        try server.json("PUT", "/api/v1/players/p", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        try server.json("POST", "/api/v1/players/p/play")
        // PulseAudio's null sink may hold a new stream for up to 2 s before it starts pulling.
        let playing = try events.collect(seconds: 10) { $0.event == "player.progress" && ($0.data["currentTime"]?.doubleValue ?? 0) > 0.3 }
        #expect(playing.last?.event == "player.progress", "the player did not start: \(playing.map(\.event))")

        #expect(kill(pulse.pid, SIGKILL) == 0)
        // ALSASink declares a device lost after a 2 s stall at most; allow for a loaded machine.
        let lost = try events.collect(seconds: 10) { $0.event == "device.routeChange" }
        let lostEvent = try #require(lost.last.flatMap { $0.event == "device.routeChange" ? $0 : nil },
                                     "no device.routeChange after the PulseAudio server died: \(lost.map(\.event))")
        #expect(lostEvent.data["reason"]?.stringValue == "oldDeviceUnavailable")
        #expect(lostEvent.data["detail"]?.stringValue?.isEmpty == false)
        let pausedSeen = try events.collect(seconds: 3) { $0.event == "player.state" && $0.data["state"]?.stringValue == "paused" }
        #expect(pausedSeen.last?.data["state"]?.stringValue == "paused" || (lost + pausedSeen).contains {
            $0.event == "player.state" && $0.data["state"]?.stringValue == "paused"
        })
        let lostDevice = try server.json("GET", "/api/v1/device")
        #expect(lostDevice["state"]?.stringValue == "lost")
        #expect(lostDevice["error"]?.stringValue?.isEmpty == false)
        let pausedAt = try #require(try server.json("GET", "/api/v1/players/p")["currentTime"]?.doubleValue)
        let clockWhileLost = try #require(lostDevice["deviceCurrentTime"]?.doubleValue)
        usleep(500_000)
        let later = try server.json("GET", "/api/v1/device")
        #expect((later["deviceCurrentTime"]?.doubleValue ?? 0) > clockWhileLost + 0.3, "the device clock runs while the device is gone")

        pulse = try PulseAudioServer.startPrivate(directory: directory)
        // Reopen attempts back off to at most 5 s apart; the pulse plugin may take a moment too.
        let back = try events.collect(seconds: 20) { $0.event == "device.routeChange" }
        let backEvent = try #require(back.last.flatMap { $0.event == "device.routeChange" ? $0 : nil },
                                     "no device.routeChange after the PulseAudio server came back: \(back.map(\.event))")
        #expect(backEvent.data["reason"]?.stringValue == "newDeviceAvailable")
        let backDevice = try server.json("GET", "/api/v1/device")
        #expect(backDevice["state"]?.stringValue == "running")
        #expect(backDevice["error"] == nil)
        let player = try server.json("GET", "/api/v1/players/p")
        #expect(player["state"]?.stringValue == "paused")
        #expect(abs((player["currentTime"]?.doubleValue ?? -1) - pausedAt) < 0.05, "the position is kept")
        // Played again, it carries on from where it was, on the reopened device.
        try server.json("POST", "/api/v1/players/p/play")
        let resumed = try events.collect(seconds: 10) { $0.event == "player.progress" && ($0.data["currentTime"]?.doubleValue ?? 0) > pausedAt + 0.3 }
        #expect(resumed.last?.event == "player.progress", "the player did not resume: \(resumed.map(\.event))")
    }
}
