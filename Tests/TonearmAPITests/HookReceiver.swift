import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP receiver for webhook tests on a free loopback port: each connection is read
/// (headers and Content-Length body) on its own thread and answered with the status the
/// `respond` function picks for the request's index, or held open without an answer when it
/// picks nil (a receiver that hangs). Thread-safe; records every request.
final class HookReceiver: @unchecked Sendable {
    struct Request {
        var headers: [String: String]
        var body: [UInt8]
        var line: String
    }

    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var received: [Request] = []
    private var closed = false
    private let respond: @Sendable (Int) -> Int?

    init(respond: @escaping @Sendable (Int) -> Int? = { _ in 200 }) throws {
        self.respond = respond
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, len) } }
        guard bound == 0, listen(sock, 16) == 0 else { throw Shell.Failed(description: "receiver: bind/listen failed") }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) } }
        fd = sock
        port = UInt16(bigEndian: addr.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    var requests: [Request] { lock.withLock { received } }

    /// Waits until `count` requests arrived (or `seconds` pass).
    func wait(for count: Int, seconds: Double) -> [Request] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && requests.count < count { usleep(20_000) }
        return requests
    }

    /// Stops listening and releases hanging connections; only the first call closes the socket
    /// (a second close could hit a descriptor another test has opened since).
    func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    deinit { close() }

    private func acceptLoop() {
        while !lock.withLock({ closed }) {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { Glibc.close(client) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var length = 0
        while true {
            if let end = headerEnd, data.count >= end + length { break }
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            data += buffer[0..<n]
            if headerEnd == nil, let end = find("\r\n\r\n", in: data) {  // the end of the blank line
                headerEnd = end
                let head = String(decoding: data[0..<(end - 4)], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let end = headerEnd else { return }
        let lines = String(decoding: data[0..<(end - 4)], as: UTF8.self).split(separator: "\r\n").map(String.init)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let index = lock.withLock { () -> Int in
            received.append(Request(headers: headers, body: Array(data[end..<(end + length)]), line: lines.first ?? ""))
            return received.count - 1
        }
        guard let status = respond(index) else {
            while !lock.withLock({ closed }) { usleep(50_000) }  // hang until the test ends
            return
        }
        let answer = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
