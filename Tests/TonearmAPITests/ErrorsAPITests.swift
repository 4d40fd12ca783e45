import Foundation
import JSON
import Testing
import TestSupport

/// Each error status of SPEC 3, with a problem+json body that says what and where.
@Suite struct ErrorsAPITests {
    func problem(_ r: RawHTTPClient.Response) throws -> JSONValue {
        #expect(r.header("Content-Type") == "application/problem+json")
        let p = try JSONValue.parse(r.body)
        #expect(p["status"]?.intValue == r.status)
        #expect(p["title"]?.stringValue != nil && p["type"]?.stringValue != nil)
        return p
    }

    @Test func validationAndStatusCodes() throws {
        let server = try ServerProcess()
        let tone = try server.addSound("tone.wav", Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000))
        try server.start()
        try server.json("PUT", "/api/v1/players/p", json: #"{"url": "file://\#(tone)"}"#, expect: 201)

        // 400: malformed JSON, with line and column.
        let bad = try server.request("PATCH", "/api/v1/players/p", json: "{\n  \"volume\": 0.5,\n  \"pan\" 1\n}")
        #expect(bad.status == 400)
        #expect(try problem(bad)["detail"]?.stringValue?.contains("line 3, column") == true)
        // 422: out of range, and unknown fields, naming them.
        let range = try server.request("PATCH", "/api/v1/players/p", json: #"{"volume": 1.5}"#)
        #expect(range.status == 422)
        #expect(try problem(range)["detail"]?.stringValue?.contains("volume") == true)
        let unknown = try server.request("PATCH", "/api/v1/players/p", json: #"{"volum": 0.5}"#)
        #expect(unknown.status == 422)
        #expect(try problem(unknown)["detail"]?.stringValue?.contains("volum") == true)
        #expect(try server.request("POST", "/api/v1/players/p/play", json: #"{"atTime": -1}"#).status == 422)
        // A time the device clock cannot represent is refused, not trapped on (found by schemathesis).
        #expect(try server.request("POST", "/api/v1/players/p/play", json: #"{"atTime": 1e300}"#).status == 422)
        #expect(try server.request("POST", "/api/v1/play", json: #"{"players": ["p"], "atTime": 7e16}"#).status == 422)
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(try server.request("PATCH", "/api/v1/players/p", json: #"{"channelAssignments": [0, 1]}"#).status == 422)
        // 404: unknown player and unknown file.
        #expect(try problem(try server.request("GET", "/api/v1/players/nobody")).isNull == false)
        #expect(try server.request("GET", "/api/v1/players/nobody").status == 404)
        #expect(try server.request("POST", "/api/v1/players", json: #"{"url": "file://\#(server.mediaRoot)/missing.wav"}"#).status == 404)
        // 405 with Allow.
        let method = try server.request("DELETE", "/api/v1/device")
        #expect(method.status == 405)
        #expect(method.header("Allow")?.contains("GET") == true)
        // 409: rate without enableRate; meters while metering is off.
        #expect(try server.request("PATCH", "/api/v1/players/p", json: #"{"rate": 1.5}"#).status == 409)
        #expect(try server.request("GET", "/api/v1/players/p/meters").status == 409)
        // 415: a state change without a JSON or audio content type.
        let form = try server.request("POST", "/api/v1/players/p/play", body: Array("a=b".utf8),
                                      headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(form.status == 415)
        _ = try problem(form)
    }

    @Test func pathsOutsideTheMediaRootsAreForbidden() throws {
        let server = try ServerProcess()
        let outside = server.directory + "/outside.wav"
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.5, seconds: 0.5, sampleRate: 48_000), sampleRate: 48_000, channels: 1, to: outside)
        try FileManager.default.createSymbolicLink(atPath: server.mediaRoot + "/link.wav", withDestinationPath: outside)
        try server.start()
        let dotdot = try server.request("POST", "/api/v1/players", json: #"{"url": "file://\#(server.mediaRoot)/../outside.wav"}"#)
        #expect(dotdot.status == 403)
        let link = try server.request("POST", "/api/v1/players", json: #"{"url": "file://\#(server.mediaRoot)/link.wav"}"#)
        #expect(link.status == 403)
        #expect(try server.request("GET", "/api/v1/media?path=media/../..").status == 403)
    }

    @Test func anUploadOverTheLimitLeavesNothingOnDisk() throws {
        let server = try ServerProcess()
        try server.start(extraArguments: ["--max-upload", "10000"])
        let big = [UInt8](repeating: 0x55, count: 50_000)
        let r = try server.request("POST", "/api/v1/players?id=big", body: big, headers: ["Content-Type": "audio/wav"])
        #expect(r.status == 413)
        for folder in ["uploads", "tmp", "players"] {
            let left = (try? FileManager.default.contentsOfDirectory(atPath: server.stateDirectory + "/" + folder)) ?? []
            #expect(left.isEmpty, "\(folder): \(left)")
        }
    }
}
