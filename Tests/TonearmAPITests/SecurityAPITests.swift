import Foundation
import JSON
import Testing
import TestSupport

/// Token, Host check and the refusal to listen openly without a token.
@Suite struct SecurityAPITests {
    @Test func theTokenIsRequiredOnTheAPI() throws {
        let server = try ServerProcess(token: "s3cret")
        try server.start()
        let missing = try server.request("GET", "/api/v1/players", authorized: false)
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try server.request("GET", "/api/v1/players", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try server.request("GET", "/api/v1/players").status == 200)
        #expect(try server.request("GET", "/api/v1/events?access_token=wrong", authorized: false).status == 401)
        #expect(try server.request("GET", "/healthz", authorized: false).status == 200)
        // The event stream takes ?access_token= (EventSource cannot send headers).
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /api/v1/events?access_token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try client.readResponseHead().status == 200)
    }

    @Test func aForeignHostIsRefused() throws {
        let server = try ServerProcess()
        try server.start()
        let r = try server.request("GET", "/api/v1/players", headers: ["Host": "evil.example:8080"])
        #expect(r.status == 403)
        #expect(r.text.contains("evil.example"))
        #expect(try server.request("GET", "/api/v1/players", headers: ["Host": "localhost:\(server.port)"]).status == 200)
    }

    @Test func listeningOnAllAddressesNeedsAToken() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ServerProcess.binary)
        p.arguments = ["serve", "--listen", "0.0.0.0:\(ServerProcess.freePort())", "--output", "null", "--state-dir", try Shell.temporaryDirectory()]
        var environment = ProcessInfo.processInfo.environment
        environment["TONEARM_TOKEN"] = nil
        p.environment = environment
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus != 0)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("token"), "\(message)")
    }
}
