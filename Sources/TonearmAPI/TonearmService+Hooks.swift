import Foundation
import HTTPServer
import JSON

/// POST/GET/DELETE /api/v1/hooks: webhooks for home automation (Webhook, WebhookRegistry).
/// Request handlers; microhttpd threads.
extension TonearmService {
    func listHooks(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        .json(["hooks": .array(hooks.all.map(\.json))])
    }

    func createHook(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var reader = try RequestJSON.object(request)
        let (given, eventFields, secret) = try RequestJSON.validate { () throws(JSONFieldError) in
            let url = try reader.field("url").string(nonEmpty: true, maxLength: 2049)
            let events = try reader.optionalElements("events")
            var secret: String?
            if let field = reader.optionalField("secret"), !field.value.isNull {
                let text = try field.string(nonEmpty: true)
                guard text.unicodeScalars.count <= 256 else {
                    throw JSONFieldError(.outOfRange, path: "secret", message: "secret must be at most 256 characters long")
                }
                secret = text
            }
            try reader.finish()
            return (url, events, secret)
        }
        // One trailing newline is tolerated and dropped (a pattern's `$` allows it).
        let url = given.hasSuffix("\n") ? String(given.dropLast()) : given
        guard url.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), let target = WebhookClient.parse(url) else {
            throw .invalid("url: '\(url.prefix(200))' is not an http:// URL Tonearm can deliver to (http://host[:port][/path]; "
                           + "https is not supported — receivers are on the LAN or this machine)")
        }
        var events: [String] = []
        for field in eventFields ?? [JSONField(.string("*"), path: "events[0]")] {
            let name = try RequestJSON.validate { () throws(JSONFieldError) in try field.string() }
            guard name == "*" || WebhookRegistry.eventNames.contains(name) else {
                throw .invalid("\(field.path) must be \"*\" or one of \(WebhookRegistry.eventNames.joined(separator: ", ")), got '\(name)'")
            }
            if !events.contains(name) { events.append(name) }
        }
        guard !events.isEmpty else { throw .invalid("events: name at least one event, or [\"*\"] for all") }
        let hook = try hooks.add(url: url, target: target, events: events, secret: secret)
        return .json(hook.json, status: 201, headers: ["Location": "/api/v1/hooks/\(hook.id)"])
    }

    func getHook(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let id = request.parameter("id") ?? ""
        guard let hook = hooks.find(id) else { throw .notFound("no webhook with id '\(id)'") }
        return .json(hook.json)
    }

    func deleteHook(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let id = request.parameter("id") ?? ""
        guard hooks.remove(id) else { throw .notFound("no webhook with id '\(id)'") }
        return .empty(status: 204)
    }
}
