import Foundation
import HTTPServer

/// The security rules of SPEC 3, checked before routing: the Host header must name this
/// server (DNS-rebinding defence), `/api/v1` needs the bearer token when one is set (the
/// event stream also takes `?access_token=`), and requests that change state must carry
/// a JSON (or, for uploads, audio) Content-Type so a foreign page cannot drive the server
/// with a simple form post (`checkContentType`, applied by each route). Any thread; immutable.
struct RequestGuard: Sendable {
    let token: String?
    let allowedHosts: Set<String>

    init(token: String?, extraHosts: [String]) {
        self.token = token
        var hosts: Set<String> = ["localhost", "localhost.localdomain", "ip6-localhost"]
        var name = [UInt8](repeating: 0, count: 256)
        if gethostname(&name, 255) == 0 {
            let host = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self).lowercased()
            hosts.insert(host)
            hosts.insert(host + ".local")
            if let short = host.split(separator: ".").first { hosts.insert(String(short)) }
        }
        for h in extraHosts { hosts.insert(h.lowercased()) }
        allowedHosts = hosts
    }

    func check(_ request: HTTPRequest) -> HTTPResponse? {
        if let host = request.headers["Host"], !hostIsAllowed(host) {
            return APIError.forbidden("Host header '\(host)' does not name this server (DNS-rebinding defence); "
                                      + "use an IP address, localhost, or a name given with TONEARM_ALLOWED_HOSTS").response
        }
        guard request.path.hasPrefix("/api/") else { return nil }
        if let token {
            var presented: String?
            if let auth = request.headers["Authorization"] {
                let parts = auth.split(separator: " ", maxSplits: 1)
                if parts.count == 2 && parts[0].lowercased() == "bearer" { presented = String(parts[1]).trimmingCharacters(in: .whitespaces) }
            }
            if presented == nil && request.path == "/api/v1/events" { presented = request.queryValue("access_token") }
            guard let presented else {
                return APIError.unauthorized("this server needs a token: send 'Authorization: Bearer TOKEN'"
                                             + (request.path == "/api/v1/events" ? " or ?access_token=TOKEN" : "")).response
            }
            guard Self.constantTimeEqual(presented, token) else {
                return APIError.unauthorized("the token is not valid").response
            }
        }
        return nil
    }

    /// The content-type rule for a routed request that changes state: JSON, or audio bytes
    /// where the route takes uploads. Checked before the handler runs (after routing, so an
    /// unknown method still gets its 405).
    static func checkContentType(_ request: HTTPRequest, acceptsAudio: Bool) throws(APIError) {
        guard ["POST", "PUT", "PATCH"].contains(request.method) else { return }
        let type = (request.contentType ?? "").lowercased()
        let isJSON = type == "application/json" || type.hasSuffix("+json")
        let isAudio = type.hasPrefix("audio/") || type == "application/octet-stream"
        if isJSON || (acceptsAudio && isAudio) { return }
        let given = request.contentType.map { "'\($0)'" } ?? "none"
        throw .unsupportedMediaType("\(request.method) \(request.path) needs Content-Type: application/json"
                                    + (acceptsAudio ? " (or the audio bytes with an audio/* type)" : "") + "; got \(given)")
    }

    private func hostIsAllowed(_ header: String) -> Bool {
        var host = header.lowercased()
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return false }
            return Self.isIPLiteral(String(host[host.index(after: host.startIndex)..<end]))
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host.hasSuffix(".") { host.removeLast() }
        return Self.isIPLiteral(host) || allowedHosts.contains(host)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0
    }
}
