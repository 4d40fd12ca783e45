import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3's SSE target: N clients of /api/v1/events?progress=0.1 on the release
/// `tonearm serve` while one looping player plays, so each client gets 10 progress events
/// a second. The server's CPU (utime + stime from /proc) is measured over a span with no
/// clients (the playing player alone) and then over the same span with every client
/// receiving; the cost of the clients is the difference. The clients live in this process:
/// non-blocking sockets read (and dropped) by one poll loop. Main thread.
enum SSEBench {
    static let target = 0.20
    static let progressInterval = 0.1
    private static let pattern = Array("event: player.progress".utf8)

    /// One client connection and what it has received.
    private struct Client {
        var fd: Int32
        var events = 0
        var bytes = 0
        var closed = false
        /// The last bytes of the stream, so a pattern split across reads is still found.
        var tail: [UInt8] = []
    }

    static func run(mediaRoot: String, file: String, clients count: Int, seconds: Double,
                    progress: (String) -> Void) -> BenchResult {
        let title = "SSE: \(count) clients of /api/v1/events?progress=\(progressInterval), one player playing, \(fmt(seconds)) s"
        var result = BenchResult(bench: "sse", title: title)
        var clients: [Client] = []
        defer { for c in clients where c.fd >= 0 { close(c.fd) } }
        do {
            try raiseFileLimit(to: count + 256)
            let server = try ServerProcess.launchTonearm(mediaRoot: mediaRoot)
            defer { server.stop() }
            try server.createLoopingPlayer(id: "p1", file: file)
            try HTTPClient(port: server.port).request("POST", "/api/v1/players/p1/play", json: "{}")
            usleep(500_000)

            progress("  no clients, \(fmt(seconds)) s…")
            let baseline = try serverShare(server, over: seconds)

            progress("  connecting \(count) clients…")
            let request = Array("GET /api/v1/events?progress=\(progressInterval) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
            for _ in 0..<count {
                let fd = try HTTPClient.connectLoopback(port: server.port)
                clients.append(Client(fd: fd))
                let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == request.count else { throw BenchError("sending the SSE request: \(String(cString: strerror(errno)))") }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            // Wait until every client has had a progress event (or 20 s).
            let connectDeadline = CPUTime.now().wall + 20
            while clients.contains(where: { $0.events == 0 && !$0.closed }) && CPUTime.now().wall < connectDeadline {
                pump(&clients, for: 0.05)
            }
            let receiving = clients.filter { $0.events > 0 && !$0.closed }.count
            guard receiving > 0 else { throw BenchError("no client received a progress event within 20 s") }
            if receiving < count { progress("  only \(receiving) of \(count) clients receive events") }

            progress("  \(count) clients, \(fmt(seconds)) s…")
            let startEvents = clients.reduce(0) { $0 + $1.events }
            let startBytes = clients.reduce(0) { $0 + $1.bytes }
            let startServer = server.cpuSeconds ?? 0
            let startSelf = CPUTime.now()
            pump(&clients, for: seconds)
            let (wall, selfCPU) = CPUTime.now().since(startSelf)
            let serverCPU = (server.cpuSeconds ?? 0) - startServer
            let threads = server.threadCount
            let events = clients.reduce(0) { $0 + $1.events } - startEvents
            let bytes = clients.reduce(0) { $0 + $1.bytes } - startBytes
            let alive = clients.filter { !$0.closed }.count

            let share = serverCPU / wall
            let cost = share - baseline
            let expected = Double(count) / progressInterval
            let eventsPerSecond = Double(events) / wall
            result.lines.append(result.line([
                ("tool", .string("tonearm")), ("ok", .bool(true)), ("clients", .int(count)), ("receiving", .int(receiving)),
                ("alive_at_end", .int(alive)), ("progress_interval_s", .number(progressInterval)), ("seconds", .number(wall)),
                ("events", .int(events)), ("events_per_s", .number(eventsPerSecond)), ("expected_events_per_s", .number(expected)),
                ("bytes_per_s", .number(Double(bytes) / wall)),
                ("server_cpu_s", .number(serverCPU)), ("server_core_share", .number(share)),
                ("baseline_core_share", .number(baseline)), ("clients_core_share", .number(cost)),
                ("server_threads", threads.map { .int($0) } ?? .null),
                ("bench_reader_core_share", .number(selfCPU / wall)),
            ]))
            result.table.append("\(receiving)/\(count) clients receiving, \(alive) alive at the end;"
                                + " \(String(format: "%.0f", eventsPerSecond)) events/s (expected \(String(format: "%.0f", expected))),"
                                + " \(String(format: "%.0f", Double(bytes) / wall / 1024)) KiB/s")
            result.table.append("server \(pct(share)) of a core with the clients, \(pct(baseline)) without (one player playing):"
                                + " the clients cost \(pct(cost)); \(threads.map(String.init) ?? "?") server threads;"
                                + " the bench's reader used \(pct(selfCPU / wall))")
            result.checks.append(RatioCheck(what: "sse \(count) clients share of a core", players: 1, value: cost,
                                            target: target, goal: .atMost, alwaysJudged: true))
            result.checks.append(RatioCheck(what: "sse events delivered/expected (sanity)", players: 1,
                                            value: eventsPerSecond / expected, target: 0.95, goal: .atLeast, alwaysJudged: true))
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }

    /// The server's CPU over `seconds`, as a share of one core.
    private static func serverShare(_ server: ServerProcess, over seconds: Double) throws(BenchError) -> Double {
        guard let start = server.cpuSeconds else { throw BenchError("cannot read the server's /proc/PID/stat") }
        let wall = CPUTime.now().wall
        usleep(UInt32(seconds * 1e6))
        guard let end = server.cpuSeconds else { throw BenchError("the server died") }
        return (end - start) / (CPUTime.now().wall - wall)
    }

    /// Reads every client that has data, for `seconds`, counting progress events.
    private static func pump(_ clients: inout [Client], for seconds: Double) {
        let deadline = CPUTime.now().wall + seconds
        var fds = clients.map { pollfd(fd: $0.closed ? -1 : $0.fd, events: Int16(POLLIN), revents: 0) }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 1024)
        defer { buffer.deallocate() }
        while true {
            let left = deadline - CPUTime.now().wall
            if left <= 0 { break }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left, 0.05) * 1000) + 1)
            guard ready > 0 else { continue }
            for i in fds.indices where fds[i].revents != 0 {
                fds[i].revents = 0
                while true {
                    let n = recv(clients[i].fd, buffer, 64 * 1024, 0)
                    if n > 0 {
                        count(UnsafeBufferPointer(start: buffer, count: n), into: &clients[i])
                        if n < 64 * 1024 { break }
                        continue
                    }
                    if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
                    if n < 0 && errno == EINTR { continue }
                    clients[i].closed = true
                    fds[i].fd = -1
                    break
                }
            }
        }
    }

    /// Counts `event: player.progress` lines in a chunk (and across the previous chunk's end).
    private static func count(_ chunk: UnsafeBufferPointer<UInt8>, into client: inout Client) {
        client.bytes += chunk.count
        var data = client.tail
        data.append(contentsOf: chunk)
        let m = pattern.count
        var i = 0
        if data.count >= m {
            while i <= data.count - m {
                if data[i] == pattern[0] && data[i..<(i + m)].elementsEqual(pattern) {
                    client.events += 1
                    i += m
                } else {
                    i += 1
                }
            }
        }
        client.tail = Array(data.suffix(min(m - 1, max(0, data.count - i))))
    }

    /// Raises RLIMIT_NOFILE's soft limit to at least `wanted` (up to the hard limit); the
    /// server, started afterwards, inherits it.
    private static func raiseFileLimit(to wanted: Int) throws(BenchError) {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur < rlim_t(wanted) else { return }
        guard limit.rlim_max >= rlim_t(wanted) else {
            throw BenchError("RLIMIT_NOFILE's hard limit \(limit.rlim_max) is below the \(wanted) descriptors needed")
        }
        limit.rlim_cur = rlim_t(wanted)
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func fmt(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v) }
    private static func pct(_ v: Double) -> String { String(format: "%.1f%%", v * 100) }
}
