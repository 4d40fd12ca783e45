import HTTPServer
import JSON

/// The API's one error type: an HTTP status with an RFC 9457 problem+json body whose
/// `detail` says what was wrong and where. Any thread.
package struct APIError: Error, Sendable, CustomStringConvertible {
    package var status: Int
    package var title: String
    package var detail: String
    package var headers: HTTPHeaders = HTTPHeaders()

    package init(_ status: Int, _ title: String, _ detail: String) {
        self.status = status
        self.title = title
        self.detail = detail
    }

    package var description: String { "\(status) \(title): \(detail)" }

    /// A stable `type` URI per kind of problem.
    var type: String {
        "https://tonearm.dev/problems/" + title.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
    }

    package var response: HTTPResponse {
        HTTPResponse.problem(status: status, title: title, detail: detail, type: type, headers: headers)
    }

    static func badJSON(_ error: JSONParseError) -> APIError { APIError(400, "Malformed JSON", error.description) }
    static func unauthorized(_ detail: String) -> APIError {
        var e = APIError(401, "Unauthorized", detail)
        e.headers["WWW-Authenticate"] = "Bearer realm=\"tonearm\""
        return e
    }
    static func forbidden(_ detail: String) -> APIError { APIError(403, "Forbidden", detail) }
    static func notFound(_ detail: String) -> APIError { APIError(404, "Not found", detail) }
    static func conflict(_ detail: String) -> APIError { APIError(409, "Conflict", detail) }
    static func unsupportedMediaType(_ detail: String) -> APIError { APIError(415, "Unsupported media type", detail) }
    static func invalid(_ detail: String) -> APIError { APIError(422, "Invalid value", detail) }
    static func invalid(_ error: JSONFieldError) -> APIError {
        APIError(422, error.kind == .unknownField ? "Unknown field" : "Invalid value", error.message)
    }
    static func unavailable(_ detail: String) -> APIError { APIError(503, "Device unavailable", detail) }
}
