/// What a handler answers: status, headers and a body (bytes, a file, or an SSE stream).
///
/// A value type; build it on any thread. `Content-Length` is added by the server
/// for byte and file bodies, so handlers never set it.
package struct HTTPResponse: Sendable {
    /// The response body.
    package enum Body: Sendable {
        /// Bytes copied into microhttpd when the response is queued.
        case bytes([UInt8])
        /// A regular file streamed with sendfile; a missing file becomes 404.
        case file(path: String)
        /// Like `file`, but the file is removed once opened (a result made for this response).
        case temporaryFile(path: String)
        /// A `text/event-stream` fed by `EventStream` from any thread.
        case eventStream(EventStream)
    }

    package var status: Int
    package var headers: HTTPHeaders
    package var body: Body

    package init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    package init(status: Int, headers: HTTPHeaders, body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body bytes of a `.bytes` response (empty for files and streams).
    package var bodyBytes: [UInt8] {
        if case .bytes(let b) = body { return b }
        return []
    }

    /// JSON bytes (already encoded by the caller) with `Content-Type: application/json`.
    package static func json(_ bytes: [UInt8], status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: h, body: bytes)
    }

    /// UTF-8 text with the given content type.
    package static func text(_ text: String, status: Int = 200,
                             contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// An empty response (204 by default).
    package static func empty(status: Int = 204, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: [])
    }

    /// An RFC 9457 `application/problem+json` body:
    /// `{"type":…,"title":…,"status":…,"detail":…}`. `title` defaults to the reason phrase.
    package static func problem(status: Int, title: String? = nil, detail: String? = nil,
                                type: String = "about:blank", headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var json = "{\"type\":"
        appendJSONString(type, to: &json)
        json += ",\"title\":"
        appendJSONString(title ?? reasonPhrase(status), to: &json)
        json += ",\"status\":\(status)"
        if let detail {
            json += ",\"detail\":"
            appendJSONString(detail, to: &json)
        }
        json += "}"
        var h = headers
        h["Content-Type"] = "application/problem+json"
        return HTTPResponse(status: status, headers: h, body: Array(json.utf8))
    }

    /// A streaming `text/event-stream` response fed by `stream`.
    package static func eventStream(_ stream: EventStream, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = "text/event-stream"
        h["Cache-Control"] = "no-cache"
        h["X-Accel-Buffering"] = "no"
        return HTTPResponse(status: 200, headers: h, body: .eventStream(stream))
    }

    /// Appends `s` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func appendJSONString(_ s: String, to out: inout String) {
        out.append("\"")
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            case "\u{2028}": out.append("\\u2028")
            case "\u{2029}": out.append("\\u2029")
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }

    /// The standard reason phrase of a status code ("Not Found").
    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "HTTP \(status)"
        }
    }
}
