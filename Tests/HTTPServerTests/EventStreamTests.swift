import TestSupport
import Testing
import Dispatch
import Synchronization
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

/// Holds the streams handed out by the test SSE route.
final class StreamBox: Sendable {
    let streams = Mutex<[EventStream]>([])
    let terminated = Atomic<Int>(0)
    var last: EventStream? { streams.withLock { $0.last } }
    var count: Int { streams.withLock { $0.count } }
}

@Suite struct EventStreamTests {
    static func sseServer(keepalive: Duration = .seconds(15), maxQueued: Int = 256 * 1024,
                          box: StreamBox) throws -> HTTPServer {
        try startServer(HTTPServer.Configuration(connectionTimeout: 30, sseKeepalive: keepalive)) { s in
            s.route("GET", "/events") { req in
                let stream = EventStream(maxQueuedBytes: maxQueued)
                stream.onTermination { box.terminated.add(1, ordering: .relaxed) }
                box.streams.withLock { $0.append(stream) }
                if let last = req.lastEventID { stream.comment("resume after \(last)") }
                return .eventStream(stream)
            }
            s.route("GET", "/plain") { _ in .text("plain") }
        }
    }

    static func openStream(_ server: HTTPServer, box: StreamBox, headers: String = "") throws -> RawHTTPClient {
        let before = box.count
        let c = try RawHTTPClient(port: server.port)
        try c.send("GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\(headers)\r\n")
        let head = try c.readResponseHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Cache-Control") == "no-cache")
        #expect(head.header("X-Accel-Buffering") == "no")
        #expect(eventually { box.count == before + 1 })
        return c
    }

    @Test func retryLineThenEventsInOrder() throws {
        let box = StreamBox()
        let server = try Self.sseServer(box: box)
        defer { server.stop() }
        let c = try Self.openStream(server, box: box, headers: "Last-Event-ID: 7\r\n")
        let first = try c.readUntil("retry: 2000\n\n")
        #expect(first.contains("retry: 2000"))
        let stream = try #require(box.last)
        for i in 1...50 {
            stream.send(id: "\(i)", event: "player.state", data: "{\"n\":\(i)}")
        }
        stream.send(id: "51", event: "multi", data: "line1\nline2")
        let text = try c.readUntil("line2\n\n")
        #expect(text.contains(": resume after 7\n\n"))
        let bytes = Array(text.utf8)
        var last = 0
        for i in 1...50 {
            let needle = "id: \(i)\nevent: player.state\ndata: {\"n\":\(i)}\n\n"
            let r = try #require(find(needle, in: bytes, from: last), "event \(i)")
            last = r
        }
        #expect(text.contains("event: multi\ndata: line1\ndata: line2\n\n"))
        #expect(!first.contains("id:"))
    }

    @Test func keepaliveCommentArrives() throws {
        let box = StreamBox()
        let server = try Self.sseServer(keepalive: .milliseconds(200), box: box)
        defer { server.stop() }
        let c = try Self.openStream(server, box: box)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try c.readUntil(": keepalive\n\n")
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(elapsed < 2)
    }

    @Test func clientDisconnectIsNoticed() throws {
        let box = StreamBox()
        let server = try Self.sseServer(box: box) // long keepalive: detection must not wait for it
        defer { server.stop() }
        let c = try Self.openStream(server, box: box)
        _ = try c.readUntil("retry:")
        #expect(server.openEventStreams == 1)
        c.shutdownNow()
        #expect(eventually(2) { box.terminated.load(ordering: .relaxed) == 1 })
        #expect(box.last?.isClosed == true)
        #expect(eventually { server.openEventStreams == 0 })
    }

    @Test func closingTheStreamEndsTheResponseAndKeepsTheConnection() throws {
        let box = StreamBox()
        let server = try Self.sseServer(box: box)
        defer { server.stop() }
        let c = try Self.openStream(server, box: box)
        let stream = try #require(box.last)
        stream.send(event: "bye", data: "x")
        stream.close()
        #expect(!stream.send(data: "after close"))
        let text = try c.readUntil("0\r\n\r\n")
        #expect(text.contains("event: bye"))
        #expect(!text.contains("after close"))
        #expect(eventually { box.terminated.load(ordering: .relaxed) == 1 })
        #expect(try c.request("GET", "/plain").text == "plain")
    }

    @Test func stopReturnsPromptlyWithOpenStreams() throws {
        let box = StreamBox()
        let server = try Self.sseServer(box: box)
        let clients = try (0..<3).map { _ in try Self.openStream(server, box: box) }
        let idle = try RawHTTPClient(port: server.port)
        #expect(try idle.request("GET", "/plain").text == "plain") // an idle keep-alive connection too
        let start = DispatchTime.now().uptimeNanoseconds
        server.stop()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(elapsed < 1.0, "stop took \(elapsed) s")
        #expect(box.terminated.load(ordering: .relaxed) == 3)
        for c in clients { #expect(c.waitForClose()) }
        #expect(!server.isRunning)
        #expect(throws: (any Error).self) { try RawHTTPClient(port: server.port == 0 ? 1 : server.port).request("GET", "/plain") }
    }

    @Test func slowClientOverflowClosesTheStream() throws {
        let box = StreamBox()
        let server = try Self.sseServer(maxQueued: 64 * 1024, box: box)
        defer { server.stop() }
        let c = try Self.openStream(server, box: box)
        let stream = try #require(box.last)
        // The client never reads: kernel buffers fill, then the queue passes its bound.
        let payload = String(repeating: "x", count: 1000)
        var accepted = 0
        for _ in 0..<100_000 {
            if !stream.send(event: "big", data: payload) { break }
            accepted += 1
        }
        #expect(accepted < 100_000)
        #expect(stream.didOverflow)
        #expect(eventually { box.terminated.load(ordering: .relaxed) == 1 })
        #expect(c.waitForClose())
    }

    @Test func onTerminationAfterTheFactRunsAtOnce() {
        let stream = EventStream()
        stream.terminate()
        let ran = Mutex(false)
        stream.onTermination { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }
}
