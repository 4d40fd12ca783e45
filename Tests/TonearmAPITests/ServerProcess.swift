import Foundation
import JSON
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `tonearm` binary serving on a free loopback port with `--output wav:PATH`,
/// its own media root and state directory. Tests drive it over HTTP like a user.
final class ServerProcess {
    let directory: String
    let mediaRoot: String
    let stateDirectory: String
    let wavPath: String
    let token: String?
    private(set) var port: UInt16 = 0
    private var process: Process?
    private var output = Pipe()

    /// The built binary: $TONEARM_BINARY, or .build/debug/tonearm of this checkout.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["TONEARM_BINARY"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/tonearm").path
    }

    init(token: String? = nil, directory: String? = nil) throws {
        self.directory = try directory ?? Shell.temporaryDirectory("tonearm-e2e")
        mediaRoot = self.directory + "/media"
        stateDirectory = self.directory + "/state"
        wavPath = self.directory + "/out-\(UUID().uuidString.prefix(6)).wav"
        self.token = token
        try FileManager.default.createDirectory(atPath: mediaRoot, withIntermediateDirectories: true)
    }

    deinit { stop() }

    /// Starts the server and waits for /healthz.
    /// `environment` adds to (or overrides) this process's environment for the server only.
    func start(extraArguments: [String] = [], environment: [String: String] = [:]) throws {
        port = Self.freePort()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        var arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--output", "wav:\(wavPath)",
                         "--media-root", mediaRoot, "--state-dir", stateDirectory, "--log-level", "warning"]
        if let token { arguments += ["--token", token] }
        p.arguments = arguments + extraArguments
        output = Pipe()
        p.standardOutput = output
        p.standardError = output
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let r = try? request("GET", "/healthz"), r.status == 200 { return }
            guard p.isRunning else { break }
            usleep(50_000)
        }
        throw Shell.Failed(description: "tonearm did not start: \(log)")
    }

    /// SIGTERM, then wait (the server flushes state and closes the WAV).
    func stop() {
        guard let p = process else { return }
        process = nil
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
    }

    var log: String {
        String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: addr.sin_port)
    }

    /// One request on a fresh connection, with the token (unless `authorized` is false)
    /// and, for a JSON body, `Content-Type: application/json`.
    @discardableResult
    func request(_ method: String, _ path: String, json: String? = nil, body: [UInt8]? = nil,
                 headers: [String: String] = [:], authorized: Bool = true) throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: port, timeoutSeconds: 20)
        var h = headers
        if h["Host"] == nil { h["Host"] = "127.0.0.1:\(port)" }
        if authorized, let token, h["Authorization"] == nil { h["Authorization"] = "Bearer \(token)" }
        if json != nil, h["Content-Type"] == nil { h["Content-Type"] = "application/json" }
        if json == nil, body == nil, ["POST", "PUT", "PATCH"].contains(method), h["Content-Type"] == nil {
            h["Content-Type"] = "application/json"
        }
        h["Connection"] = "close"
        return try client.request(method, path, headers: h, body: body ?? Array((json ?? "").utf8))
    }

    /// A request whose JSON response is parsed.
    @discardableResult
    func json(_ method: String, _ path: String, json: String? = nil, expect status: Int = 200) throws -> JSONValue {
        let r = try request(method, path, json: json)
        guard r.status == status else {
            throw Shell.Failed(description: "\(method) \(path) answered \(r.status), expected \(status): \(r.text)")
        }
        return try JSONValue.parse(r.body)
    }

    /// Writes a WAV into the media root and returns its path.
    func addSound(_ name: String, _ samples: [Float], rate: Int = 48_000, channels: Int = 1) throws -> String {
        let path = mediaRoot + "/" + name
        try WAVFile.write(samples, sampleRate: rate, channels: channels, to: path, float: true)
        return path
    }
}
