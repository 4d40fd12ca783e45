import AudioDecoding
import AudioEngine
import Foundation
import HTTPServer
import JSON

/// A player node the API manages, under its API id. Nodes are not persisted: a node and
/// its schedule live as long as the server. A plain value; any thread.
struct NodeEntry: Sendable {
    let nodeID: String
    let node: PlayerNode
}

/// /api/v1/nodes: AVAudioPlayerNode-style scheduling of segments and buffers (SPEC 3, issue 7).
extension TonearmService {
    /// The engine id of node `id`: nodes and players have separate id spaces.
    static func engineID(ofNode id: String) -> String { "node:" + id }

    func findNode(_ id: String) throws(APIError) -> PlayerNode {
        guard let n = nodes.withReadLock({ $0.first { $0.nodeID == id } }) else { throw .notFound("no node with id '\(id)'") }
        return n.node
    }

    /// Node settings: the player settings a node has (volume, pan, enableRate, rate,
    /// meteringEnabled, channelAssignments); a player-only field is named in the error.
    static func readNodeSettings(_ reader: inout JSONObjectReader) throws(APIError) -> PlayerSettings {
        for name in ["numberOfLoops", "currentTime", "category", "categoryOptions", "resumeAfterInterruption", "duckDB"] where reader.contains(name) {
            throw .invalid("\(name): is a player setting; a node has volume, pan, enableRate, rate, meteringEnabled and channelAssignments")
        }
        return try RequestJSON.validate { () throws(JSONFieldError) in try PlayerSettings(reading: &reader) }
    }

    // MARK: Handlers

    func listNodes(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        .json(["nodes": .array(nodes.withReadLock { $0 }.map { NodeJSON.node($0.node) })])
    }

    func createNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var reader = try RequestJSON.object(request, optional: true)
        let (id, channels) = try RequestJSON.validate { () throws(JSONFieldError) in
            (try reader.optionalString("id"), try reader.optionalInt("channels", in: 1...8) ?? 2)
        }
        let settings = try Self.readNodeSettings(&reader)
        try reader.finishOrThrow()
        if let id { try Self.validateID(id) }
        let chosen = id ?? newNodeID()
        let node = try makeNode(id: chosen, channels: channels, settings: settings)
        let registered = nodes.withLock { list -> Bool in
            guard !list.contains(where: { $0.nodeID == chosen }) else { return false }
            list.append(NodeEntry(nodeID: chosen, node: node))
            return true
        }
        guard registered else {
            node.player.remove()
            throw .conflict("id: a node '\(chosen)' already exists")
        }
        let body = NodeJSON.node(node)
        feed.publish("node.created", body, playerID: chosen)
        return .json(body, status: 201, headers: ["Location": "/api/v1/nodes/\(chosen)"])
    }

    /// A new engine node with `settings` applied (not registered).
    func makeNode(id: String, channels: Int, settings: PlayerSettings, on engine: Engine? = nil) throws(APIError) -> PlayerNode {
        let node: PlayerNode
        do { node = try (engine ?? self.engine).makeNode(id: Self.engineID(ofNode: id), channels: channels) } catch {
            throw .conflict("\(error)")
        }
        do { try apply(settings, to: node.player, managed: nil) } catch {
            node.player.remove()
            throw error
        }
        return node
    }

    private func newNodeID() -> String {
        let taken = Set(nodes.withReadLock { $0.map(\.nodeID) })
        var n = taken.count + 1
        while taken.contains("node-\(n)") { n += 1 }
        return "node-\(n)"
    }

    func getNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        var body = NodeJSON.node(node).objectValue ?? [:]
        func sampleTime(_ name: String) throws(APIError) -> Int64? {
            guard let text = request.queryValue(name) else { return nil }
            guard let v = Int64(text), v.magnitude <= 1 << 52 else { throw .invalid("\(name): '\(text)' is not a sample time (an integer)") }
            return v
        }
        // Both are checked; with both, nodeSampleTime is converted.
        let (nodeTime, playerTime) = (try sampleTime("nodeSampleTime"), try sampleTime("playerSampleTime"))
        if let n = nodeTime {
            body["conversion"] = ["nodeSampleTime": .int(n), "playerSampleTime": node.playerTime(forNodeTime: n).map { .int($0) } ?? .null]
        } else if let p = playerTime {
            body["conversion"] = ["playerSampleTime": .int(p), "nodeSampleTime": node.nodeTime(forPlayerTime: p).map { .int($0) } ?? .null]
        }
        return .json(.object(body))
    }

    func patchNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        var reader = try RequestJSON.object(request)
        let settings = try Self.readNodeSettings(&reader)
        try reader.finishOrThrow()
        try apply(settings, to: node.player, managed: nil)
        return nodeUpdated(node)
    }

    private func nodeUpdated(_ node: PlayerNode) -> HTTPResponse {
        let body = NodeJSON.node(node)
        feed.publish("node.updated", body, playerID: NodeJSON.apiID(node))
        return .json(body)
    }

    func deleteNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let id = request.parameter("id") ?? ""
        let node = try findNode(id)
        node.stop()
        nodes.withLock { $0.removeAll { $0.nodeID == id } }
        engine.poll()  // the cancelled items' reports go out before node.deleted
        node.player.remove()
        feed.publish("node.deleted", ["id": .string(id)], playerID: id)
        return .empty(status: 204)
    }

    func playNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        let result = try startPlaying(node.player, request)
        guard result.ok else { throw .unavailable("the node could not start: its audio was not ready in time") }
        return .json(Self.adding(result, to: NodeJSON.node(node)))
    }

    func pauseNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        try RequestJSON.object(request, optional: true).finishOrThrow()
        node.player.pause()
        return .json(NodeJSON.node(node))
    }

    func stopNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        try RequestJSON.object(request, optional: true).finishOrThrow()
        node.stop()
        return .json(NodeJSON.node(node))
    }

    func fadeNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        try fade(node.player, request)
        return nodeUpdated(node)
    }

    func nodeMeters(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let node = try findNode(request.parameter("id") ?? "")
        return try meters(node.player, named: "node '\(NodeJSON.apiID(node))'")
    }

    /// POST /api/v1/nodes/{id}/schedule: JSON names a sound (`url` or `player`); audio bytes
    /// are a sound; `application/octet-stream` is float32 PCM in the node's format. Bytes take
    /// their options from the query.
    func scheduleOnNode(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let nodeID = request.parameter("id") ?? ""
        let node = try findNode(nodeID)
        let info: ScheduledItemInfo
        if let file = request.bodyFile {
            defer { unlink(file) }
            let options = try ScheduleOptions(query: request)
            guard let data = FileManager.default.contents(atPath: file), !data.isEmpty else {
                throw .invalid("the body is empty: send a sound's bytes (audio/*) or float32 PCM (application/octet-stream)")
            }
            if request.contentType?.hasPrefix("audio/") == true {
                let decoder: any AudioDecoder
                do { decoder = try AudioDecoders.open(.bytes([UInt8](data))) } catch {
                    throw .invalid("the uploaded bytes are not a sound Tonearm can play: \(error)")
                }
                info = try schedule(decoder, key: "upload:\(UUID().uuidString)", options, on: node)
            } else {
                guard data.count % 4 == 0 else { throw .invalid("the PCM body is \(data.count) bytes: not a whole number of float32 samples") }
                let samples = data.withUnsafeBytes { raw in
                    (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
                }
                if let bad = samples.firstIndex(where: { !$0.isFinite }) { throw .invalid("the PCM body: sample \(bad) is not a finite number") }
                try checkItemID(options.id, on: node)
                do { info = try node.scheduleBuffer(samples, at: options.at, callbackType: options.callbackType, id: options.id) } catch {
                    throw .invalid("\(error)")
                }
            }
        } else {
            var reader = try RequestJSON.object(request)
            let spec = try ScheduleSpec(reading: &reader)
            try reader.finishOrThrow()
            info = try schedule(spec, on: node)
        }
        let body = NodeJSON.item(info, rate: node.sampleRate)
        var event = body.objectValue ?? [:]
        event["node"] = .string(nodeID)
        feed.publish("node.scheduled", .object(event), playerID: nodeID)
        return .json(body, status: 201)
    }

    /// Schedules a JSON item (a sound named by `url` or `player`) on `node`.
    func schedule(_ spec: ScheduleSpec, on node: PlayerNode) throws(APIError) -> ScheduledItemInfo {
        let (path, key) = try soundPath(spec)
        let decoder: any AudioDecoder
        do { decoder = try AudioDecoders.open(.file(path)) } catch {
            throw .invalid("\(spec.url == nil ? "player" : "url"): \(error)")
        }
        return try schedule(decoder, key: key, spec.options, on: node)
    }

    private func schedule(_ decoder: any AudioDecoder, key: String, _ o: ScheduleOptions, on node: PlayerNode) throws(APIError) -> ScheduledItemInfo {
        try checkItemID(o.id, on: node)
        do {
            return try node.scheduleSegment(decoder, key: key, startingFrame: o.startingFrame, frameCount: o.frameCount, at: o.at,
                                            callbackType: o.callbackType, id: o.id)
        } catch { throw .invalid("\(error)") }
    }

    private func checkItemID(_ id: String?, on node: PlayerNode) throws(APIError) {
        guard let id else { return }
        try Self.validateID(id, field: "id")
        if node.queue.contains(where: { $0.id == id }) { throw .conflict("id: an item '\(id)' is already scheduled on this node") }
    }

    /// The file of a JSON item's sound and the key that identifies it: a media URL or path,
    /// or another player's sound (uploaded bytes included).
    func soundPath(_ spec: ScheduleSpec) throws(APIError) -> (path: String, key: String) {
        if let url = spec.url {
            let resolved = try media.resolve(url)
            return (resolved.path, resolved.url)
        }
        let m = try find(spec.player ?? "")
        return (m.source.path, m.source.url ?? "upload:" + m.source.path)
    }
}
