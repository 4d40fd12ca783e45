import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3's request-rate target: `wrk -t2 -c64` on GET /api/v1/players/{id} of the release
/// `tonearm serve` (null output, one stopped player) against a bare libmicrohttpd server
/// with the same daemon flags and options answering a fixed 200-byte body, one after the
/// other in the same run. The bare server's C source is written next to the inputs and
/// compiled with `cc -O2` and pkg-config's flags. Main thread.
enum HTTPBench {
    static let target = 0.6

    /// What one `wrk` run printed.
    struct WrkRun: Sendable {
        var requestsPerSecond = 0.0
        var requests = 0
        var non2xx = 0
        var socketErrors = 0
        var averageLatencyMs: Double?
        /// Server CPU seconds during the run (from /proc), and the run's wall seconds.
        var serverCPUSeconds = 0.0
        var wallSeconds = 0.0
    }

    static func run(mediaRoot: String, file: String, workDirectory: String, seconds: Double, connections: Int,
                    progress: (String) -> Void) -> BenchResult {
        let title = "HTTP: wrk -t2 -c\(connections) -d\(Int(seconds.rounded()))s GET /api/v1/players/{id} vs a bare libmicrohttpd server"
        var result = BenchResult(bench: "http", title: title)
        do {
            let bare = try compileBareServer(in: workDirectory)

            progress("  tonearm serve…")
            let tonearm = try ServerProcess.launchTonearm(mediaRoot: mediaRoot)
            defer { tonearm.stop() }
            try tonearm.createLoopingPlayer(id: "p1", file: file)
            let path = "/api/v1/players/p1"
            let tonearmBody = try HTTPClient(port: tonearm.port).request("GET", path)
            let ours = try wrk(tonearm, path: path, seconds: seconds, connections: connections)
            let tonearmThreads = tonearm.threadCount
            tonearm.stop()

            progress("  bare libmicrohttpd…")
            let port = try ServerProcess.freePort()
            let peer = try ServerProcess.launch([bare, String(port)], port: port, name: "bare-mhd")
            defer { peer.stop() }
            let bareBody = try HTTPClient(port: peer.port).request("GET", path)
            let theirs = try wrk(peer, path: path, seconds: seconds, connections: connections)
            peer.stop()

            for (tool, run, bytes) in [("tonearm", ours, tonearmBody.utf8.count), ("bare libmicrohttpd", theirs, bareBody.utf8.count)] {
                var fields: [(String, JSONValue)] = [
                    ("tool", .string(tool)), ("ok", .bool(true)), ("path", .string(path)),
                    ("wrk_threads", .int(2)), ("connections", .int(connections)), ("seconds", .number(seconds)),
                    ("requests_per_s", .number(run.requestsPerSecond)), ("requests", .int(run.requests)),
                    ("non_2xx", .int(run.non2xx)), ("socket_errors", .int(run.socketErrors)),
                    ("latency_avg_ms", run.averageLatencyMs.map { .number($0) } ?? .null),
                    ("body_bytes", .int(bytes)), ("server_cores", .number(run.serverCPUSeconds / run.wallSeconds)),
                ]
                if tool == "tonearm" { fields.append(("server_threads", tonearmThreads.map { .int($0) } ?? .null)) }
                result.lines.append(result.line(fields))
                let latency = run.averageLatencyMs.map { String(format: "%.2f", $0) } ?? "?"
                result.table.append(tool.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(format: "%9.0f req/s", run.requestsPerSecond)
                    + "  (\(run.requests) requests, \(run.non2xx) non-2xx, \(run.socketErrors) socket errors, avg latency \(latency) ms,"
                    + " body \(bytes) B, server " + String(format: "%.2f", run.serverCPUSeconds / run.wallSeconds) + " cores)")
            }
            if ours.non2xx > 0 || theirs.non2xx > 0 {
                result.failure = "wrk saw non-2xx answers (tonearm \(ours.non2xx), bare \(theirs.non2xx))"
                return result
            }
            let ratio = ours.requestsPerSecond / theirs.requestsPerSecond
            result.checks.append(RatioCheck(what: "http GET player req/s tonearm/bare mhd", players: 1, value: ratio,
                                            target: target, goal: .atLeast, alwaysJudged: true))
        } catch {
            result.failure = String(describing: error)
        }
        return result
    }

    /// Runs wrk against `server` and reads its report; the server's CPU is sampled around it.
    private static func wrk(_ server: ServerProcess, path: String, seconds: Double, connections: Int) throws(BenchError) -> WrkRun {
        let startCPU = server.cpuSeconds ?? 0
        let start = CPUTime.now().wall
        let output = ChildProcess.run(["wrk", "-t2", "-c\(connections)", "-d\(Int(seconds.rounded()))s",
                                       "http://127.0.0.1:\(server.port)\(path)"], captureStdout: true)
        var run = WrkRun()
        run.wallSeconds = CPUTime.now().wall - start
        run.serverCPUSeconds = (server.cpuSeconds ?? 0) - startCPU
        guard output.succeeded else { throw BenchError(output.failureDescription + " (is wrk installed? make bench-deps)") }
        for rawLine in output.stdout.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), words.count >= 2 {
                run.requestsPerSecond = Double(words[1]) ?? 0
            } else if line.contains(" requests in "), let n = Int(words[0]) {
                run.requests = n
            } else if line.hasPrefix("Non-2xx or 3xx responses:"), let n = words.last.flatMap({ Int($0) }) {
                run.non2xx = n
            } else if line.hasPrefix("Socket errors:") {
                // "Socket errors: connect 0, read 0, write 0, timeout 0"
                run.socketErrors = words.compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }.reduce(0, +)
            } else if line.hasPrefix("Latency"), words.count >= 2 {
                run.averageLatencyMs = milliseconds(String(words[1]))
            }
        }
        guard run.requestsPerSecond > 0 else { throw BenchError("wrk printed no Requests/sec: \(output.stdout.prefix(300))") }
        return run
    }

    /// wrk's "1.23ms" / "456.00us" / "1.20s" in milliseconds.
    private static func milliseconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 1e-3), ("ms", 1.0), ("s", 1e3)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }

    /// Writes `bare-mhd.c` into `directory` and compiles it; returns the executable's path.
    static func compileBareServer(in directory: String) throws(BenchError) -> String {
        let source = directory + "/bare-mhd.c"
        let binary = directory + "/bare-mhd"
        do {
            try bareServerSource.write(toFile: source, atomically: true, encoding: .utf8)
        } catch {
            throw BenchError("cannot write \(source): \(error)")
        }
        let command = "cc -O2 -Wall -o '\(binary)' '\(source)' $(pkg-config --cflags --libs libmicrohttpd)"
        let compiled = ChildProcess.run(["/bin/bash", "-c", command])
        guard compiled.succeeded else { throw BenchError("compiling the bare server failed: \(compiled.failureDescription)") }
        return binary
    }

    /// The peer: libmicrohttpd with HTTPServer's daemon flags and options (Sources/CMicroHTTPD/
    /// shim.h and tonearm serve's limits), keep-alive kept by answering on the handler's second
    /// call as HTTPServer does, and a fixed 200-byte JSON body for every request.
    static let bareServerSource = #"""
        /* bare-mhd: the peer of tonearm-bench's HTTP benchmark (written and compiled by the bench).
           libmicrohttpd with the daemon flags and options of Tonearm's HTTPServer, answering every
           request with the same 200-byte JSON body. Usage: bare-mhd PORT. Stops on SIGINT/SIGTERM. */
        #include <microhttpd.h>
        #include <arpa/inet.h>
        #include <netinet/in.h>
        #include <pthread.h>
        #include <signal.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        #define BODY_BYTES 200
        static char body[BODY_BYTES];
        static int request_marker;

        static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls)
        {
            (void) cls; (void) url; (void) method; (void) version; (void) upload_data;
            if (*con_cls == NULL) {           /* headers in: answer on a later call (keeps keep-alive) */
                *con_cls = &request_marker;
                return MHD_YES;
            }
            if (*upload_data_size > 0) {      /* a body: read and drop it */
                *upload_data_size = 0;
                return MHD_YES;
            }
            struct MHD_Response *response = MHD_create_response_from_buffer(BODY_BYTES, body, MHD_RESPMEM_PERSISTENT);
            if (response == NULL) return MHD_NO;
            MHD_add_response_header(response, "Content-Type", "application/json");
            enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
            MHD_destroy_response(response);
            return queued;
        }

        static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                              enum MHD_RequestTerminationCode code)
        {
            (void) cls; (void) connection; (void) code;
            *con_cls = NULL;
        }

        int main(int argc, char **argv)
        {
            if (argc != 2) { fprintf(stderr, "usage: bare-mhd PORT\n"); return 2; }
            /* A JSON object of exactly BODY_BYTES bytes. */
            memset(body, 'x', sizeof body);
            const char *head = "{\"id\":\"p1\",\"state\":\"stopped\",\"pad\":\"";
            memcpy(body, head, strlen(head));
            body[BODY_BYTES - 2] = '"';
            body[BODY_BYTES - 1] = '}';

            struct sockaddr_in addr;
            memset(&addr, 0, sizeof addr);
            addr.sin_family = AF_INET;
            addr.sin_port = htons((unsigned short) atoi(argv[1]));
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

            /* Block the stop signals in every thread (the daemon's threads inherit the mask). */
            sigset_t stop;
            sigemptyset(&stop);
            sigaddset(&stop, SIGINT);
            sigaddset(&stop, SIGTERM);
            pthread_sigmask(SIG_BLOCK, &stop, NULL);

            unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD
                               | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_SUPPRESS_DATE_NO_CLOCK;
            struct MHD_Daemon *daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL,
                MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
                MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 1024,
                MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) 0,
                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
                MHD_OPTION_THREAD_STACK_SIZE, (size_t) 0,
                MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int) 1,
                MHD_OPTION_END);
            if (daemon == NULL) { fprintf(stderr, "bare-mhd: cannot listen on port %s\n", argv[1]); return 1; }
            int signal_number = 0;
            sigwait(&stop, &signal_number);
            MHD_stop_daemon(daemon);
            return 0;
        }
        """#
}
