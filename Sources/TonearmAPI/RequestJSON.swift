import HTTPServer
import JSON

/// Reading JSON request bodies with SPEC 3's errors: 400 (with line and column) for
/// malformed JSON, 422 for a body that is not an object. Any thread.
enum RequestJSON {
    /// The body as an object reader; an empty body gives an empty object when `optional`.
    static func object(_ request: HTTPRequest, optional: Bool = false) throws(APIError) -> JSONObjectReader {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            if optional { return JSONObjectReader(object: JSONObject()) }
            throw APIError(400, "Malformed JSON", "empty body: expected a JSON object")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(request.body) } catch { throw APIError.badJSON(error) }
        do { return try JSONObjectReader(value) } catch { throw APIError.invalid(error) }
    }

    /// Runs `body`, turning field errors into 422 problems.
    static func validate<T>(_ body: () throws(JSONFieldError) -> T) throws(APIError) -> T {
        do { return try body() } catch { throw APIError.invalid(error) }
    }
}

extension HTTPResponse {
    /// A JSON response from a value.
    static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        .json(value.serialized(.compact), status: status, headers: headers)
    }
}
