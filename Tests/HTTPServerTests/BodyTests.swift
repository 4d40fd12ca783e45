import TestSupport
import Testing
import Synchronization
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

@Suite struct BodyTests {
    /// Sends `body` with chunked transfer encoding in chunks of `chunk` bytes.
    static func sendChunked(_ c: RawHTTPClient, _ method: String, _ target: String, body: [UInt8], chunk: Int = 4096,
                            headers: String = "") throws {
        try c.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\(headers)\r\n")
        var i = 0
        while i < body.count {
            let n = min(chunk, body.count - i)
            try c.send(Array((String(n, radix: 16) + "\r\n").utf8) + Array(body[i..<(i + n)]) + [13, 10])
            i += n
        }
        try c.send("0\r\n\r\n")
    }

    @Test func bufferedBodyOverCapIs413() throws {
        let server = try startServer(HTTPServer.Configuration(maxBodyBytes: 1000)) { s in
            s.route("POST", "/json") { req in .text("got \(req.body.count)") }
            s.route("POST", "/small", body: .buffered(maxBytes: 10)) { req in .text("got \(req.body.count)") }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        #expect(try c.request("POST", "/json", body: Array(repeating: 1, count: 1000)).text == "got 1000")
        #expect(try c.request("POST", "/small", body: Array(repeating: 1, count: 10)).text == "got 10")

        // Declared too large up front: refused before the body is read.
        let c2 = try RawHTTPClient(port: server.port)
        try c2.send("POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
        let r = try c2.readResponse()
        #expect(r.status == 413)
        #expect(r.header("Content-Type") == "application/problem+json")

        let c3 = try RawHTTPClient(port: server.port)
        #expect(try c3.request("POST", "/small", body: Array(repeating: 1, count: 11)).status == 413)

        // Chunked: detected while streaming.
        let c4 = try RawHTTPClient(port: server.port)
        try Self.sendChunked(c4, "POST", "/json", body: Array(repeating: 7, count: 3000), chunk: 500)
        let r4 = try c4.readResponse()
        #expect(r4.status == 413)
        #expect(r4.text.contains("\"status\":413"))

        let c5 = try RawHTTPClient(port: server.port)
        try Self.sendChunked(c5, "POST", "/json", body: Array(repeating: 7, count: 900), chunk: 100)
        #expect(try c5.readResponse().text == "got 900")
    }

    @Test func uploadIsStreamedToTemporaryFile() throws {
        let dir = makeTempDirectory()
        let kept = makeTempDirectory()
        let seen = Mutex<(String?, [UInt8])>((nil, []))
        let server = try startServer { s in
            s.route("PUT", "/upload/{name}", body: .upload(directory: dir, maxBytes: 1 << 20)) { req in
                guard let file = req.bodyFile else { return .problem(status: 500) }
                seen.withLock { $0 = (file, readFileBytes(file) ?? []) }
                if req.parameter("name") == "keep" {
                    rename(file, kept + "/kept")
                }
                return .text("\(req.bodyLength)", status: 201)
            }
        }
        defer { server.stop() }
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let c = try RawHTTPClient(port: server.port)
        let r = try c.request("PUT", "/upload/temp", body: payload)
        #expect(r.status == 201)
        #expect(r.text == "300000")
        let (path, bytes) = seen.withLock { $0 }
        #expect(path?.hasPrefix(dir + "/") == true)
        #expect(bytes == payload)
        #expect(listDirectory(dir).isEmpty) // not taken: deleted after the handler

        try BodyTests.sendChunked(c, "PUT", "/upload/keep", body: payload, chunk: 7000)
        #expect(try c.readResponse().status == 201)
        #expect(readFileBytes(kept + "/kept") == payload)
        #expect(listDirectory(dir).isEmpty)
    }

    @Test func uploadOverCapIs413AndLeavesNothing() throws {
        let dir = makeTempDirectory()
        let called = Mutex(false)
        let server = try startServer { s in
            s.route("POST", "/upload", body: .upload(directory: dir, maxBytes: 100_000)) { _ in
                called.withLock { $0 = true }
                return .empty(status: 201)
            }
        }
        defer { server.stop() }
        let big = [UInt8](repeating: 9, count: 150_000)

        let c1 = try RawHTTPClient(port: server.port)
        try c1.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 150000\r\n\r\n")
        #expect(try c1.readResponse().status == 413)
        #expect(listDirectory(dir).isEmpty)

        let c2 = try RawHTTPClient(port: server.port)
        try BodyTests.sendChunked(c2, "POST", "/upload", body: big, chunk: 10_000)
        #expect(try c2.readResponse().status == 413)
        #expect(eventually { listDirectory(dir).isEmpty })
        #expect(!called.withLock { $0 })
    }

    @Test func uploadAbortedMidwayLeavesNothing() throws {
        let dir = makeTempDirectory()
        let server = try startServer { s in
            s.route("POST", "/upload", body: .upload(directory: dir, maxBytes: 1 << 20)) { _ in .empty(status: 201) }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        try c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        try c.send([UInt8](repeating: 1, count: 5000))
        #expect(eventually { listDirectory(dir).count == 1 })
        c.shutdownNow()
        #expect(eventually { listDirectory(dir).isEmpty })
    }

    @Test func perRequestBodyPolicy() throws {
        let dir = makeTempDirectory()
        let server = try startServer { s in
            s.route("POST", "/players", body: .perRequest { req in
                req.contentType?.hasPrefix("audio/") == true ? .upload(directory: dir, maxBytes: 1 << 20) : .buffered()
            }) { req in
                .text(req.bodyFile != nil ? "file \(req.bodyLength)" : "json \(req.body.count)")
            }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        #expect(try c.request("POST", "/players", headers: ["Content-Type": "audio/mpeg"], body: [1, 2, 3]).text == "file 3")
        #expect(try c.request("POST", "/players", headers: ["Content-Type": "application/json"], body: [1, 2]).text == "json 2")
    }
}
