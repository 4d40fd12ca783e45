/// One HTTP request as a route handler (or the `beforeRoute` hook) sees it.
///
/// A value type built on the microhttpd connection thread that serves the request;
/// safe to pass to any thread.
package struct HTTPRequest: Sendable {
    /// One decoded `name=value` pair of the query string (a bare `name` has value "").
    package struct QueryItem: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The method as sent (`GET`, `POST`, …). A `HEAD` request keeps `HEAD` here even
    /// though it is routed to the `GET` handler.
    package var method: String
    /// The percent-decoded path, without the query (`/api/v1/players/a b`).
    package var path: String
    /// The request target exactly as received (`/api/v1/players/a%20b?x=1`).
    package var target: String
    /// The query items, percent-decoded (`+` is a space), in order.
    package var query: [QueryItem]
    /// Request headers, case-insensitive.
    package var headers: HTTPHeaders
    /// The buffered body (empty for upload routes and bodiless requests).
    package var body: [UInt8]
    /// For upload routes: the temporary file holding the complete body. Move it away
    /// (rename) to keep it; whatever is left at this path is deleted after the handler returns.
    package var bodyFile: String?
    /// Number of body bytes received (buffered or written to `bodyFile`).
    package var bodyLength: Int
    /// The client's numeric IP address (`127.0.0.1`, `::1`), or "" if unknown.
    package var remoteAddress: String
    /// Values of the `{name}` segments of the matched route pattern.
    package var pathParameters: [String: String]

    package init(method: String, path: String, target: String? = nil, query: [QueryItem] = [],
                 headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], bodyFile: String? = nil,
                 remoteAddress: String = "", pathParameters: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.target = target ?? path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bodyLength = body.count
        self.remoteAddress = remoteAddress
        self.pathParameters = pathParameters
    }

    /// The value of the route parameter `{name}`.
    package func parameter(_ name: String) -> String? { pathParameters[name] }

    /// The first query value named `name`.
    package func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The `Last-Event-ID` header of an SSE reconnect.
    package var lastEventID: String? { headers["Last-Event-ID"] }

    /// The media type of the body, lower-cased, without parameters (`application/json`).
    package var contentType: String? {
        guard let raw = headers["Content-Type"] else { return nil }
        let base = raw.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return base.trimmingSpaces().lowercased()
    }

    /// The body as UTF-8 text (invalid sequences repaired).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

extension HTTPRequest {
    /// Splits a raw request target into a decoded path and decoded query items.
    /// Returns nil for a path whose percent-escapes are malformed or decode to a NUL.
    static func parseTarget(_ target: String) -> (path: String, query: [QueryItem])? {
        let bytes = Array(target.utf8)
        let q = bytes.firstIndex(of: UInt8(ascii: "?"))
        var rawPath = bytes[..<(q ?? bytes.endIndex)]
        if let hash = rawPath.firstIndex(of: UInt8(ascii: "#")) { rawPath = rawPath[..<hash] }
        guard let path = percentDecode(rawPath, plusIsSpace: false), !path.contains("\0") else { return nil }
        var items: [QueryItem] = []
        if let q {
            var rawQuery = bytes[(q + 1)...]
            if let hash = rawQuery.firstIndex(of: UInt8(ascii: "#")) { rawQuery = rawQuery[..<hash] }
            for part in rawQuery.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let eq = part.firstIndex(of: UInt8(ascii: "="))
                let name = percentDecode(part[..<(eq ?? part.endIndex)], plusIsSpace: true) ?? ""
                let value = eq.map { percentDecode(part[($0 + 1)...], plusIsSpace: true) ?? "" } ?? ""
                items.append(QueryItem(name: name, value: value))
            }
        }
        return (path, items)
    }

    /// Decodes `%XX` escapes (and `+` when `plusIsSpace`); nil if an escape is malformed.
    static func percentDecode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        if !bytes.contains(UInt8(ascii: "%")) && !(plusIsSpace && bytes.contains(UInt8(ascii: "+"))) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex,
                      let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
