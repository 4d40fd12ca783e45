import Foundation
import JSON
import TestSupport

/// Reads a server-sent-events stream event by event.
final class SSEReader {
    struct Event {
        var id: Int?
        var event: String
        var data: JSONValue
    }

    let client: RawHTTPClient
    private var pending = ""

    init(server: ServerProcess, query: String = "", lastEventID: Int? = nil) throws {
        client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        var request = "GET /api/v1/events\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nAccept: text/event-stream\r\n"
        if let token = server.token { request += "Authorization: Bearer \(token)\r\n" }
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        try client.send(request + "\r\n")
        let head = try client.readResponseHead()
        guard head.status == 200 else { throw Shell.Failed(description: "events answered \(head.status)") }
    }

    /// The next event (skipping comments and the retry line), or nil on timeout/close.
    func next() throws -> Event? {
        while true {
            if let range = pending.range(of: "\n\n") {
                let block = String(pending[..<range.lowerBound])
                pending = String(pending[range.upperBound...])
                var id: Int?
                var event = "message"
                var data = ""
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { data += line.dropFirst(6) }
                }
                if data.isEmpty { continue }
                return Event(id: id, event: event, data: try JSONValue.parse(Array(data.utf8)))
            }
            guard let chunk = try? client.readChunkText() else { return nil }
            pending += chunk
        }
    }

    /// Events until `stop` returns true for one (included), or until `seconds` pass.
    func collect(seconds: Double, until stop: (Event) -> Bool = { _ in false }) throws -> [Event] {
        var events: [Event] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let e = try next() {
            events.append(e)
            if stop(e) { break }
        }
        return events
    }
}
