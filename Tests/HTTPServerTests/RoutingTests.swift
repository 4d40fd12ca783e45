import TestSupport
import Testing
import Synchronization
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

/// Starts a server on 127.0.0.1 with an ephemeral port.
func startServer(_ configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                 _ setup: (HTTPServer) throws -> Void) throws -> HTTPServer {
    let server = HTTPServer(configuration: configuration)
    try setup(server)
    try server.start()
    #expect(server.port != 0)
    return server
}

@Suite struct RoutingTests {
    static func apiServer() throws -> HTTPServer {
        try startServer { s in
            s.route("GET", "/api/v1/players") { _ in .text("list") }
            s.route("POST", "/api/v1/players") { req in .text("create \(req.bodyText)", status: 201) }
            s.route("GET", "/api/v1/players/{id}") { req in .text("player \(req.parameter("id") ?? "?")") }
            s.route("DELETE", "/api/v1/players/{id}") { req in .empty() }
            s.route("GET", "/api/v1/players/special") { _ in .text("literal wins") }
            s.route("POST", "/api/v1/players/{id}/play") { req in .text("play \(req.parameter("id") ?? "?")") }
            s.route("GET", "/echo") { req in
                let q = req.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
                return .text("\(req.path)|\(q)|\(req.headers["x-test-header"] ?? "-")|\(req.lastEventID ?? "-")|\(req.remoteAddress)")
            }
        }
    }

    @Test func routesWithParameters() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        #expect(try c.request("GET", "/api/v1/players").text == "list")
        #expect(try c.request("GET", "/api/v1/players/kitchen").text == "player kitchen")
        #expect(try c.request("GET", "/api/v1/players/special").text == "literal wins")
        let play = try c.request("POST", "/api/v1/players/lounge/play")
        #expect(play.status == 200)
        #expect(play.text == "play lounge")
        let created = try c.request("POST", "/api/v1/players", body: Array("{\"a\":1}".utf8))
        #expect(created.status == 201)
        #expect(created.text == "create {\"a\":1}")
        #expect(try c.request("GET", "/api/v1/players/a%20b").text == "player a b")
        // U+1193F is a Unicode "prepend" character: as a Character it swallows the next `/`.
        let prepend = try c.request("POST", "/api/v1/players/x%F0%91%A4%BF/play")
        #expect(prepend.status == 200, "found by schemathesis: \(prepend.text)")
    }

    @Test func queryHeadersAndRemoteAddress() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let r = try c.request("GET", "/echo?players=a%2Cb&x=1+2&flag", headers: ["X-TEST-Header": "yes", "Last-Event-ID": "42"])
        #expect(r.text == "/echo|players=a,b&x=1 2&flag=|yes|42|127.0.0.1")
    }

    @Test func unknownPathIs404Problem() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let r = try c.request("GET", "/api/v1/nothing")
        #expect(r.status == 404)
        #expect(r.header("Content-Type") == "application/problem+json")
        #expect(r.text.contains("\"status\":404"))
        #expect(try c.request("GET", "/api/v1/players/a/b/c").status == 404)
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let r = try c.request("PATCH", "/api/v1/players")
        #expect(r.status == 405)
        #expect(r.header("Allow") == "GET, HEAD, POST, OPTIONS")
        let r2 = try c.request("PUT", "/api/v1/players/x/play")
        #expect(r2.status == 405)
        #expect(r2.header("Allow") == "POST, OPTIONS")
        let options = try c.request("OPTIONS", "/api/v1/players/x")
        #expect(options.status == 204)
        #expect(options.header("Allow") == "GET, HEAD, DELETE, OPTIONS")
    }

    @Test func headAnswersHeadersOnly() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let r = try c.request("HEAD", "/api/v1/players/kitchen")
        #expect(r.status == 200)
        #expect(r.header("Content-Length") == "14")
        // No body bytes were sent: the next response on the same connection parses cleanly.
        #expect(try c.request("GET", "/api/v1/players").text == "list")
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let a = try c.request("GET", "/api/v1/players/a")
        let b = try c.request("GET", "/api/v1/players/b")
        #expect(a.text == "player a")
        #expect(b.text == "player b")
        #expect(a.header("Connection")?.lowercased() != "close")
        #expect(b.header("Connection")?.lowercased() != "close")
        #expect(a.header("Date") == nil)
        // Pipelined too.
        try c.send("GET /api/v1/players/c HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/players/d HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try c.readResponse().text == "player c")
        #expect(try c.readResponse().text == "player d")
    }

    @Test func beforeRouteHookCanReject() throws {
        let seen = Mutex<[String]>([])
        let server = try startServer { s in
            s.beforeRoute = { req in
                seen.withLock { $0.append(req.method + " " + req.path) }
                if req.path.hasPrefix("/api/"), req.headers["Authorization"] != "Bearer t" {
                    return .problem(status: 401, detail: "missing token", headers: ["WWW-Authenticate": "Bearer"])
                }
                return nil
            }
            s.route("POST", "/api/v1/x") { req in .text("ok \(req.body.count)") }
            s.route("GET", "/open") { _ in .text("open") }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let denied = try c.request("POST", "/api/v1/x", body: Array(repeating: 65, count: 1000))
        #expect(denied.status == 401)
        #expect(denied.header("WWW-Authenticate") == "Bearer")
        #expect(denied.text.contains("missing token"))
        // The rejected body was drained: the connection is still usable.
        let ok = try c.request("POST", "/api/v1/x", headers: ["Authorization": "Bearer t"], body: [1, 2, 3])
        #expect(ok.text == "ok 3")
        #expect(try c.request("GET", "/open").text == "open")
        #expect(seen.withLock { $0 } == ["POST /api/v1/x", "POST /api/v1/x", "GET /open"])
    }

    @Test func malformedTargetIs400() throws {
        let server = try Self.apiServer()
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        #expect(try c.request("GET", "/api/v1/players/%zz").status == 400)
    }

    @Test func listensOnLocalhostAndIPv6() throws {
        let server = try startServer(HTTPServer.Configuration(host: "localhost")) { s in
            s.route("GET", "/x") { _ in .text("x") }
        }
        defer { server.stop() }
        #expect(try RawHTTPClient(port: server.port).request("GET", "/x").text == "x")

        let v6 = HTTPServer(configuration: HTTPServer.Configuration(host: "::1"))
        v6.route("GET", "/y") { req in .text(req.remoteAddress) }
        do {
            try v6.start()
        } catch {
            return // no IPv6 loopback on this machine
        }
        defer { v6.stop() }
        #expect(try RawHTTPClient(port: v6.port, host: "::1").request("GET", "/y").text == "::1")
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: .init(host: "not a host")).start() }
    }

    @Test func problemJSONEscapes() {
        let r = HTTPResponse.problem(status: 422, detail: "bad \"x\"\\\n\t\u{01} é")
        #expect(r.headers["content-type"] == "application/problem+json")
        #expect(String(decoding: r.bodyBytes, as: UTF8.self)
            == #"{"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"bad \"x\"\\\n\t\u0001 é"}"#)
    }
}
