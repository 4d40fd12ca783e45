import AudioCore
import Foundation
import HTTPServer
import JSON

/// The route table of SPEC 3 and the small resources (health, spec, device, media, events).
extension TonearmService {
    /// Registers every route, the security hook and the control page on `server`.
    package func register(on server: HTTPServer) throws {
        let guardRules = requestGuard
        server.beforeRoute = { guardRules.check($0) }
        func route(_ method: String, _ path: String, body: RequestBody = .buffered(), acceptsAudio: Bool = false,
                   _ handler: @escaping @Sendable (TonearmService) -> (HTTPRequest) throws(APIError) -> HTTPResponse) {
            server.route(method, path, body: body) { [weak self] request in
                guard let self else { return APIError.unavailable("the server is shutting down").response }
                do throws(APIError) {
                    try RequestGuard.checkContentType(request, acceptsAudio: acceptsAudio)
                    return try handler(self)(request)
                } catch { return error.response }
            }
        }
        route("GET", "/healthz") { s in s.health }
        route("GET", "/openapi.yaml") { s in s.openAPI }
        route("GET", "/api/v1/device") { s in s.device }
        route("GET", "/api/v1/media") { s in s.listMedia }
        route("GET", "/api/v1/players") { s in s.listPlayers }
        route("POST", "/api/v1/players", body: createBody, acceptsAudio: true) { s in s.createPlayer }
        route("GET", "/api/v1/players/{id}") { s in s.getPlayer }
        route("PUT", "/api/v1/players/{id}", body: createBody, acceptsAudio: true) { s in s.putPlayer }
        route("PATCH", "/api/v1/players/{id}") { s in s.patchPlayer }
        route("DELETE", "/api/v1/players/{id}") { s in s.deletePlayer }
        route("POST", "/api/v1/players/{id}/prepare") { s in s.prepare }
        route("POST", "/api/v1/players/{id}/play") { s in s.play }
        route("POST", "/api/v1/players/{id}/pause") { s in s.pause }
        route("POST", "/api/v1/players/{id}/stop") { s in s.stop }
        route("POST", "/api/v1/players/{id}/fade") { s in s.fade }
        route("GET", "/api/v1/players/{id}/meters") { s in s.meters }
        route("GET", "/api/v1/players/{id}/artwork") { s in s.artwork }
        route("POST", "/api/v1/players/{id}/command") { s in s.command }
        route("POST", "/api/v1/play") { s in s.playTogether }
        route("GET", "/api/v1/nodes") { s in s.listNodes }
        route("POST", "/api/v1/nodes") { s in s.createNode }
        route("GET", "/api/v1/nodes/{id}") { s in s.getNode }
        route("PATCH", "/api/v1/nodes/{id}") { s in s.patchNode }
        route("DELETE", "/api/v1/nodes/{id}") { s in s.deleteNode }
        route("POST", "/api/v1/nodes/{id}/schedule", body: createBody, acceptsAudio: true) { s in s.scheduleOnNode }
        route("POST", "/api/v1/nodes/{id}/play") { s in s.playNode }
        route("POST", "/api/v1/nodes/{id}/pause") { s in s.pauseNode }
        route("POST", "/api/v1/nodes/{id}/stop") { s in s.stopNode }
        route("POST", "/api/v1/nodes/{id}/fade") { s in s.fadeNode }
        route("GET", "/api/v1/nodes/{id}/meters") { s in s.nodeMeters }
        route("POST", "/api/v1/render") { s in s.render }
        route("GET", "/api/v1/nowplaying") { s in s.nowPlaying }
        route("POST", "/api/v1/session/interruption") { s in s.interruption }
        route("POST", "/api/v1/announce", body: createBody, acceptsAudio: true) { s in s.announce }
        route("GET", "/api/v1/hooks") { s in s.listHooks }
        route("POST", "/api/v1/hooks") { s in s.createHook }
        route("GET", "/api/v1/hooks/{id}") { s in s.getHook }
        route("DELETE", "/api/v1/hooks/{id}") { s in s.deleteHook }
        route("GET", "/api/v1/events") { s in s.events }
        if let publicDirectory = configuration.publicDirectory {
            try server.serveStatic(directory: publicDirectory, at: "/")
        }
    }

    func health(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let device = engine.isDeviceLost ? "lost" : engine.deviceError == nil ? "running" : "failed"
        return .json(["status": "ok", "device": .string(device)])
    }

    func openAPI(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard let path = configuration.openAPIPath, let data = FileManager.default.contents(atPath: path) else {
            throw .notFound("this server was started without its openapi.yaml")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/yaml"], body: [UInt8](data))
    }

    func device(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        .json(deviceJSON())
    }

    func listMedia(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        .json(try media.list(request.queryValue("path") ?? ""))
    }

    /// GET /api/v1/events: the SSE feed, with `players`, `progress` and `meters` options.
    func events(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        func interval(_ name: String, default value: Double) throws(APIError) -> Double {
            guard let text = request.queryValue(name) else { return value }
            guard let v = Double(text), v.isFinite, v >= 0, v <= 3600 else {
                throw .invalid("\(name): must be a number of seconds between 0 and 3600 (0 = off), got '\(text)'")
            }
            return v == 0 ? 0 : max(v, 0.05)
        }
        let progress = try interval("progress", default: 1)
        let meters = try interval("meters", default: 0)
        var filter: Set<String>? = nil
        if let list = request.queryValue("players"), !list.isEmpty {
            filter = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        var lastID: Int? = nil
        if let text = request.lastEventID ?? request.queryValue("lastEventId") {
            guard let n = Int(text), n >= 0 else { throw .invalid("Last-Event-ID: '\(text)' is not an event id") }
            lastID = n
        }
        if request.method == "HEAD" {
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], body: [])
        }
        let stream = EventStream()
        let subscriber = EventFeed.Subscriber(stream: stream, players: filter, progressInterval: progress,
                                              metersInterval: meters, now: MonotonicClock.seconds)
        feed.subscribe(subscriber, lastEventID: lastID) {
            var events: [(String, JSONValue, String?)] = [("device.state", deviceJSON(), nil)]
            for m in players.withReadLock({ $0 }) { events.append(("player.state", PlayerJSON.state(m.player), m.id)) }
            for n in nodes.withReadLock({ $0 }) { events.append(("node.state", NodeJSON.state(n.node), n.nodeID)) }
            return events
        }
        return .eventStream(stream)
    }
}
