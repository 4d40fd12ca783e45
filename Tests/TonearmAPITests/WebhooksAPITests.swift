import Foundation
import JSON
import Testing
import TestSupport

/// Webhooks: signed deliveries, retries, persistence, and a hanging receiver that slows nothing.
@Suite struct WebhooksAPITests {
    /// The hex HMAC-SHA256 of `body` under `key`, by the openssl command-line tool.
    private func hmac(_ body: [UInt8], key: String, directory: String) throws -> String {
        let path = directory + "/body-\(UUID().uuidString).json"
        try Data(body).write(to: URL(fileURLWithPath: path))
        let out = try Shell.run(["openssl", "dgst", "-sha256", "-hmac", key, "-r", path])
        return String(out.split(separator: " ").first ?? "")
    }

    @Test func signedDeliveriesAreRetriedAfterA500AndHooksPersist() throws {
        let receiver = try HookReceiver { index in index == 0 ? 500 : 200 }
        defer { receiver.close() }
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 1, sampleRate: 48_000))
        try server.start()
        let r = try server.request("POST", "/api/v1/hooks", json: #"{"url": "\#(receiver.url)", "events": ["player.created"], "secret": "s3cret"}"#)
        #expect(r.status == 201, "\(r.text)")
        let hook = try JSONValue.parse(r.body)
        let id = try #require(hook["id"]?.stringValue)
        #expect(r.header("Location") == "/api/v1/hooks/\(id)")
        #expect(hook["hasSecret"]?.boolValue == true)
        #expect(hook["secret"] == nil, "the secret is never echoed")
        #expect(hook["events"]?.arrayValue?.compactMap(\.stringValue) == ["player.created"])

        try server.json("PUT", "/api/v1/players/tone", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        try server.json("PATCH", "/api/v1/players/tone", json: #"{"volume": 0.5}"#)  // player.updated: not wanted
        let got = receiver.wait(for: 2, seconds: 8)
        let hookState = try server.request("GET", "/api/v1/hooks/\(id)").text
        try #require(got.count == 2, "expected a failed try and a retry, got \(got.count): \(hookState)")
        #expect(got[0].headers["x-tonearm-delivery"] == got[1].headers["x-tonearm-delivery"])
        #expect(got[0].headers["x-tonearm-delivery"]?.isEmpty == false)
        for request in got {
            #expect(request.line.hasPrefix("POST /hook HTTP/1.1"))
            #expect(request.headers["x-tonearm-event"] == "player.created")
            #expect(request.headers["content-type"] == "application/json")
            let signature = try hmac(request.body, key: "s3cret", directory: server.directory)
            #expect(request.headers["x-tonearm-signature"] == "sha256=" + signature)
            let payload = try JSONValue.parse(request.body)
            #expect(payload["event"]?.stringValue == "player.created")
            #expect(payload["data"]?["id"]?.stringValue == "tone")
            #expect(payload["id"]?.intValue != nil)
            #expect(payload["deliveredAt"]?.stringValue?.hasSuffix("Z") == true)
        }
        usleep(300_000)
        #expect(receiver.requests.count == 2, "player.updated is not delivered to a player.created hook")
        let status = try server.json("GET", "/api/v1/hooks/\(id)")
        #expect(status["delivered"]?.intValue == 1)
        #expect(status["failed"]?.intValue == 0)
        #expect(status["lastStatus"]?.intValue == 200)
        #expect(status["lastError"]?.isNull == true)
        #expect(try server.json("GET", "/api/v1/hooks")["hooks"]?.arrayValue?.count == 1)

        // Hooks persist (mode 0600: the secret is in the file); the secret still is not shown.
        let file = server.stateDirectory + "/hooks/\(id).json"
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        server.stop()
        let again = try ServerProcess(directory: server.directory)
        try again.start()
        let restored = try again.json("GET", "/api/v1/hooks/\(id)")
        #expect(restored["hasSecret"]?.boolValue == true)
        #expect(restored["url"]?.stringValue == receiver.url)
        #expect(try again.request("DELETE", "/api/v1/hooks/\(id)").status == 204)
        #expect(try again.request("GET", "/api/v1/hooks/\(id)").status == 404)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aReceiverThatHangsSlowsNothingElse() throws {
        let receiver = try HookReceiver { _ in nil }
        defer { receiver.close() }
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.3, seconds: 2, sampleRate: 48_000))
        try server.start()
        try server.json("POST", "/api/v1/hooks", json: #"{"url": "\#(receiver.url)", "events": ["*"]}"#, expect: 201)
        try server.json("PUT", "/api/v1/players/tone", json: #"{"url": "file://\#(tone)"}"#, expect: 201)
        _ = receiver.wait(for: 1, seconds: 5)
        #expect(receiver.requests.count >= 1, "the hook was tried")
        let events = try SSEReader(server: server, query: "?progress=0")
        try server.json("POST", "/api/v1/players/tone/play")
        var slowest = 0.0
        for i in 0..<20 {
            let start = Date()
            try server.json("GET", "/api/v1/players")
            try server.json("PATCH", "/api/v1/players/tone", json: #"{"pan": \#(i % 2 == 0 ? 0.25 : -0.25)}"#)
            slowest = max(slowest, Date().timeIntervalSince(start))
            usleep(50_000)
        }
        #expect(slowest < 0.5, "slowest request pair took \(slowest) s while the receiver hangs")
        // Events still flow to SSE clients, and the player plays on.
        let seen = try events.collect(seconds: 5) { $0.event == "player.finished" }
        #expect(seen.contains { $0.event == "player.finished" })
        let hooks = try server.json("GET", "/api/v1/hooks")["hooks"]?.arrayValue ?? []
        #expect(hooks.first?["pending"]?.intValue ?? 0 > 0, "deliveries queue up behind the hanging one")
    }

    @Test func badHooksAreRefused() throws {
        let server = try ServerProcess()
        try server.start()
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "https://example.com/hook"}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x/ a"}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x:0/"}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x/", "events": ["player.exploded"]}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x/", "events": []}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x/", "secret": ""}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/hooks", json: #"{"url": "http://x/", "colour": "red"}"#).status == 422)
        #expect(try server.request("GET", "/api/v1/hooks/nothing").status == 404)
        #expect(try server.request("DELETE", "/api/v1/hooks/nothing").status == 404)
        let ok = try server.json("POST", "/api/v1/hooks", json: #"{"url": "http://[::1]:8123/api/webhook/tonearm?x=1"}"#, expect: 201)
        #expect(ok["events"]?.arrayValue?.compactMap(\.stringValue) == ["*"])
        #expect(ok["hasSecret"]?.boolValue == false)
    }
}
