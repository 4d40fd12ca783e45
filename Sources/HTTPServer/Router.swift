/// Maps method + path to handlers. Patterns are `/`-separated; a segment written
/// `{name}` matches any one non-empty segment and is handed to the handler as a path
/// parameter (`/api/v1/players/{id}/play`). When several patterns match a path, the one
/// with the most literal segments wins. Matching is on the percent-decoded path, so an
/// encoded `%2F` splits a segment like a `/` (ids are slugs; this is deliberate).
///
/// A value type: build it before the server starts; the running server reads a frozen copy.
package struct Router: Sendable {
    /// A synchronous handler, called on a microhttpd connection thread.
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// One registered route.
    package struct Route: Sendable {
        package let method: String
        package let pattern: String
        let segments: [Segment]
        let literalCount: Int
        package let body: RequestBody
        package let handler: Handler
    }

    /// The outcome of routing one request.
    enum Match {
        case route(Route, parameters: [String: String])
        /// The path exists but not for this method; `allow` lists the methods it has.
        case methodNotAllowed(allow: [String])
        case notFound
    }

    private(set) package var routes: [Route] = []

    package init() {}

    /// Adds a route. `method` is upper-cased; a `GET` route also answers `HEAD`.
    package mutating func add(_ method: String, _ pattern: String, body: RequestBody = .buffered(),
                              handler: @escaping Handler) {
        let segments = Self.split(pattern).map { s -> Segment in
            if s.hasPrefix("{") && s.hasSuffix("}") && s.count > 2 {
                return .parameter(String(s.dropFirst().dropLast()))
            }
            return .literal(String(s))
        }
        let literals = segments.reduce(0) { if case .literal = $1 { $0 + 1 } else { $0 } }
        routes.append(Route(method: method.uppercased(), pattern: pattern, segments: segments,
                            literalCount: literals, body: body, handler: handler))
    }

    /// Finds the route for `method` and the decoded `path`.
    func match(method: String, path: String) -> Match {
        let parts = Self.split(path)
        var best: (Route, [String: String])?
        var headFallback: (Route, [String: String])?
        var methods: Set<String> = []
        for route in routes {
            guard let params = Self.bind(route.segments, parts) else { continue }
            methods.insert(route.method)
            if route.method == method {
                if best == nil || route.literalCount > best!.0.literalCount { best = (route, params) }
            } else if method == "HEAD" && route.method == "GET" {
                if headFallback == nil || route.literalCount > headFallback!.0.literalCount {
                    headFallback = (route, params)
                }
            }
        }
        if let (route, params) = best ?? headFallback { return .route(route, parameters: params) }
        if methods.isEmpty { return .notFound }
        return .methodNotAllowed(allow: Self.allowList(methods))
    }

    /// The `Allow` list for a set of route methods: adds HEAD for GET and OPTIONS,
    /// in a conventional order.
    static func allowList(_ methods: Set<String>) -> [String] {
        var all = methods
        if all.contains("GET") { all.insert("HEAD") }
        all.insert("OPTIONS")
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        return order.filter { all.contains($0) } + all.subtracting(order).sorted()
    }

    /// Splits on the byte `/`, not on Characters: a grapheme cluster may swallow a `/` (a
    /// Unicode "prepend" character such as U+1193F before it), which would merge segments.
    private static func split(_ path: String) -> [Substring] {
        var parts: [Substring] = []
        var start = path.startIndex
        for index in path.unicodeScalars.indices where path.unicodeScalars[index] == "/" {
            parts.append(Substring(path.unicodeScalars[start..<index]))
            start = path.unicodeScalars.index(after: index)
        }
        parts.append(Substring(path.unicodeScalars[start...]))
        if parts.first == "" { parts.removeFirst() }
        return parts
    }

    private static func bind(_ segments: [Segment], _ parts: [Substring]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var params: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let s):
                if s != part { return nil }
            case .parameter(let name):
                if part.isEmpty { return nil }
                params[name] = String(part)
            }
        }
        return params
    }
}
