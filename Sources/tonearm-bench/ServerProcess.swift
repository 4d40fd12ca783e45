import AudioCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server the bench runs as a child process (the release `tonearm`, or the bare
/// libmicrohttpd server): started on a free loopback port, waited for until it answers,
/// measured by its CPU time in /proc, and stopped with SIGINT (SIGKILL after 5 s).
/// Main thread.
final class ServerProcess {
    let pid: pid_t
    let port: UInt16
    let name: String
    private let errorPath: String
    private var exited = false
    /// A folder removed when the server stops (its state directory).
    var cleanupDirectory: String?

    private init(pid: pid_t, port: UInt16, name: String, errorPath: String) {
        self.pid = pid
        self.port = port
        self.name = name
        self.errorPath = errorPath
    }

    deinit { stop() }

    /// The `tonearm` executable next to this bench's own (both are built into the same
    /// `.build/release`).
    static func siblingExecutable(_ name: String) throws(BenchError) -> String {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw BenchError("cannot read /proc/self/exe")
        }
        let path = (own as NSString).deletingLastPathComponent + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("\(path) is missing: build it first (swift build -c release --product \(name), or make bench)")
        }
        return path
    }

    /// A loopback port nobody listens on right now.
    static func freePort() throws(BenchError) -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw BenchError("cannot find a free port: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Starts `arguments` (the port is already in them) and waits until GET /healthz answers.
    static func launch(_ arguments: [String], port: UInt16, name: String) throws(BenchError) -> ServerProcess {
        let errorPath = NSTemporaryDirectory() + "tonearm-bench-\(getpid())-\(MonotonicClock.nanoseconds()).server.stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        let server = ServerProcess(pid: pid, port: port, name: name, errorPath: errorPath)
        let deadline = MonotonicClock.nanoseconds() + 15_000_000_000
        while MonotonicClock.nanoseconds() < deadline {
            if server.hasExited {
                throw BenchError("\(name) exited at start: \(server.stderrTail)")
            }
            if let client = try? HTTPClient(port: port, timeout: 2), (try? client.request("GET", "/healthz")) != nil {
                return server
            }
            usleep(50_000)
        }
        server.stop()
        throw BenchError("\(name) did not answer on port \(port) within 15 s: \(server.stderrTail)")
    }

    /// True once the process has ended (reaped).
    var hasExited: Bool {
        if exited { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return exited
    }

    /// User + system CPU seconds of the whole process so far (all threads), from /proc/PID/stat.
    var cpuSeconds: Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15 (1-based).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Threads the process has now.
    var threadCount: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The end of what the server wrote to stderr.
    var stderrTail: String {
        guard let data = FileManager.default.contents(atPath: errorPath) else { return "" }
        return String(decoding: data.suffix(1000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGINT, then SIGKILL if it has not exited within 5 s. Safe to call twice.
    func stop() {
        defer {
            unlink(errorPath)
            if let cleanupDirectory { try? FileManager.default.removeItem(atPath: cleanupDirectory) }
            cleanupDirectory = nil
        }
        guard !hasExited else { return }
        kill(pid, SIGINT)
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while !hasExited && MonotonicClock.nanoseconds() < deadline { usleep(20_000) }
        if !hasExited {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            exited = true
        }
    }
}

extension ServerProcess {
    /// The release `tonearm serve` on a free port with the null output, `mediaRoot` as its
    /// media root and a fresh temporary state directory (removed when it stops).
    static func launchTonearm(mediaRoot: String) throws(BenchError) -> ServerProcess {
        let binary = try siblingExecutable("tonearm")
        let port = try freePort()
        let stateDirectory = NSTemporaryDirectory() + "tonearm-bench-state-\(getpid())-\(MonotonicClock.nanoseconds())"
        let server = try launch([binary, "serve", "--listen", "127.0.0.1:\(port)", "--output", "null",
                                 "--media-root", mediaRoot, "--state-dir", stateDirectory, "--log-level", "warning"],
                                port: port, name: "tonearm serve")
        server.cleanupDirectory = stateDirectory
        return server
    }

    /// Creates a looping player `id` of `file` (an absolute path under the media root) over HTTP.
    func createLoopingPlayer(id: String, file: String) throws(BenchError) {
        let client = try HTTPClient(port: port)
        try client.request("PUT", "/api/v1/players/\(id)", json: "{\"url\":\(JSONValue.string(file).text),\"numberOfLoops\":-1}")
    }
}
