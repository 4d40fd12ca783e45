import TestSupport
import Testing
import Dispatch
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

@Suite struct LimitsTests {
    @Test func perIPConnectionLimitDropsExtraConnections() throws {
        let server = try startServer(HTTPServer.Configuration(perIPConnectionLimit: 2)) { s in
            s.route("GET", "/x") { _ in .text("x") }
        }
        defer { server.stop() }
        let a = try RawHTTPClient(port: server.port)
        let b = try RawHTTPClient(port: server.port)
        #expect(try a.request("GET", "/x").text == "x")
        #expect(try b.request("GET", "/x").text == "x")
        let c = try RawHTTPClient(port: server.port)
        #expect(throws: (any Error).self) { try c.request("GET", "/x") } // dropped, no HTTP status
        withExtendedLifetime((a, b)) {}
    }

    @Test func keepaliveIsClampedBelowTheConnectionTimeout() throws {
        let box = StreamBox()
        // Timeout 1 s with a 15 s keepalive: the keepalive must be clamped or the stream dies.
        let server = try startServer(HTTPServer.Configuration(connectionTimeout: 1, sseKeepalive: .seconds(15))) { s in
            s.route("GET", "/events") { _ in
                let stream = EventStream()
                box.streams.withLock { $0.append(stream) }
                return .eventStream(stream)
            }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        try c.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try c.readUntil("retry: 2000\n\n")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try c.readUntil(": keepalive\n\n")
        _ = try c.readUntil(": keepalive\n\n")
        _ = try c.readUntil(": keepalive\n\n")
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(elapsed > 1.0) // outlived the 1 s idle timeout
        box.last?.send(data: "still here")
        _ = try c.readUntil("data: still here\n\n")
    }
}
