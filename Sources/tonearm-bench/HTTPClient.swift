import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client over one kept-alive loopback TCP connection, for
/// driving a server in the benchmarks (create a player, play, stop). Responses must carry
/// `Content-Length` (every non-streaming response of microhttpd with a buffer does).
/// Not thread-safe: one thread at a time.
final class HTTPClient {
    let port: UInt16
    private let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads and writes time out after `timeout` seconds.
    init(port: UInt16, timeout: Double = 10) throws(BenchError) {
        self.port = port
        fd = try HTTPClient.connectLoopback(port: port)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// A blocking TCP connection to 127.0.0.1:`port`.
    static func connectLoopback(port: UInt16) throws(BenchError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw BenchError("connect to 127.0.0.1:\(port): \(message)")
        }
        return fd
    }

    /// The raw bytes of a request (with `Host`, and a JSON body when given).
    func requestBytes(_ method: String, _ path: String, json: String? = nil) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let json {
            text += "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n" + json
        } else {
            text += "\r\n"
        }
        return Array(text.utf8)
    }

    /// Writes prepared request bytes.
    func write(_ bytes: [UInt8]) throws(BenchError) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchError("sending the request: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads one response; returns its status and body.
    func readResponse() throws(BenchError) -> (status: Int, body: String) {
        var headerEnd: Int?
        while true {
            if let end = HTTPClient.find([13, 10, 13, 10], in: pending) { headerEnd = end; break }
            try fill()
        }
        let head = String(decoding: pending[..<headerEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw BenchError("bad status line '\(lines[0])'") }
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            if parts.count == 2, parts[0].lowercased() == "transfer-encoding" {
                throw BenchError("chunked responses are not supported by the bench client")
            }
        }
        let bodyStart = headerEnd! + 4
        while pending.count < bodyStart + length { try fill() }
        let body = String(decoding: pending[bodyStart..<(bodyStart + length)], as: UTF8.self)
        pending.removeFirst(bodyStart + length)
        return (status, body)
    }

    /// Sends a request and reads its response; throws unless the status is 2xx.
    @discardableResult
    func request(_ method: String, _ path: String, json: String? = nil) throws(BenchError) -> String {
        try write(requestBytes(method, path, json: json))
        let (status, body) = try readResponse()
        guard (200..<300).contains(status) else { throw BenchError("\(method) \(path) answered \(status): \(body.prefix(300))") }
        return body
    }

    private func fill() throws(BenchError) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                pending.append(contentsOf: buffer[..<n])
                return
            }
            if n < 0 && errno == EINTR { continue }
            throw BenchError(n == 0 ? "the server closed the connection" : "reading the response: \(String(cString: strerror(errno)))")
        }
    }

    /// Index of the first occurrence of `pattern` in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        outer: for i in 0...(bytes.count - pattern.count) {
            for j in 0..<pattern.count where bytes[i + j] != pattern[j] { continue outer }
            return i
        }
        return nil
    }
}
