#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// A tiny blocking HTTP/1.1 client over a raw socket, so tests control every byte
/// (keep-alive, chunked bodies, malformed targets, half-read SSE streams).
package final class RawHTTPClient {
    package struct Response {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]
        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    package struct ClientError: Error, CustomStringConvertible {
        package var description: String
    }

    package let fd: Int32
    private var buffer: [UInt8] = []

    package init(port: UInt16, host: String = "127.0.0.1", timeoutSeconds: Int = 5) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc: Int32
        if v6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &addr.sin6_addr)
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &addr.sin_addr)
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard rc == 0 else {
            close(fd)
            throw ClientError(description: "connect failed: \(errno)")
        }
    }

    deinit { close(fd) }

    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw ClientError(description: "send failed: \(errno)") }
            offset += n
        }
    }

    /// Sends a request with `Content-Length` for a non-empty body.
    package func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.keys.contains(where: { $0.lowercased() == "host" }) { head += "Host: 127.0.0.1\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(head: method == "HEAD")
    }

    /// Reads more bytes into the buffer; false on EOF, throws on timeout/error.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return false }
        if n < 0 { throw ClientError(description: "recv failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let i = findCRLF() {
                let line = String(decoding: buffer[0..<i], as: UTF8.self)
                buffer.removeFirst(i + 2)
                return line
            }
            guard try fill() else { throw ClientError(description: "EOF in line") }
        }
    }

    private func findCRLF() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for i in 0..<(buffer.count - 1) where buffer[i] == 13 && buffer[i + 1] == 10 { return i }
        return nil
    }

    private func readExactly(_ n: Int) throws -> [UInt8] {
        while buffer.count < n {
            guard try fill() else { throw ClientError(description: "EOF in body") }
        }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    package func readResponseHead() throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw ClientError(description: "bad status line: \(statusLine)")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]),
                                String(line[line.index(after: colon)...]).trimmingCharactersSpace()))
            }
        }
        return Response(status: status, headers: headers, body: [])
    }

    package func readResponse(head: Bool = false) throws -> Response {
        var response = try readResponseHead()
        if head || response.status == 204 || response.status == 304 { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw ClientError(description: "bad chunk size")
                }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                response.body += try readExactly(size)
                _ = try readLine()
            }
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads raw bytes (chunk framing included) until `text` has been seen, returning
    /// (and consuming) everything up to its end; throws on timeout or EOF.
    package func readUntil(_ text: String) throws -> String {
        while true {
            if let end = find(text, in: buffer) {
                let s = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end)
                return s
            }
            let s = String(decoding: buffer, as: UTF8.self)
            guard try fill() else { throw ClientError(description: "EOF before \(text.debugDescription); got \(s.debugDescription)") }
        }
    }

    /// Reads the next chunk of a chunked body (after `readResponseHead`) as text; throws at
    /// the end of the body or on timeout.
    package func readChunkText() throws -> String {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";").first.map(String.init)?.trimmingCharactersSpace() ?? "", radix: 16) else {
            throw ClientError(description: "bad chunk size line \(sizeLine.debugDescription)")
        }
        if size == 0 { throw ClientError(description: "end of chunked body") }
        let data = try readExactly(size)
        _ = try readExactly(2)
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads until the peer closes; returns true if it closed (false on timeout).
    package func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return errno == ECONNRESET
            }
        }
    }

    /// Closes the socket abruptly (as a browser tab going away would).
    package func shutdownNow() {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }
}

extension String {
    package func trimmingCharactersSpace() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}

/// The end offset of the first occurrence of `needle` in `hay` at or after `from`.
package func find(_ needle: String, in hay: [UInt8], from: Int = 0) -> Int? {
    let n = Array(needle.utf8)
    guard n.count <= hay.count else { return nil }
    var i = from
    while i + n.count <= hay.count {
        if hay[i..<(i + n.count)].elementsEqual(n) { return i + n.count }
        i += 1
    }
    return nil
}
