import AudioCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one child process did: how it ended, how long it took and the CPU it used.
struct ChildResult: Sendable {
    /// The command line, for messages.
    var arguments: [String]
    /// Exit status (0 is success); nil when it died of a signal or never started.
    var exitStatus: Int32?
    /// The signal that ended it, if one did.
    var signal: Int32?
    /// Wall-clock seconds from spawn to exit.
    var wallSeconds: Double
    /// User + system CPU seconds of the child (from `wait4`).
    var cpuSeconds: Double
    /// What it wrote to stderr (trimmed, at most a few kB).
    var stderr: String
    /// What it wrote to stdout (trimmed, at most a few kB), when asked for; otherwise empty.
    var stdout: String = ""

    var succeeded: Bool { exitStatus == 0 }

    /// One line saying why it failed.
    var failureDescription: String {
        let how = if let exitStatus { "exited with status \(exitStatus)" }
                  else if let signal { "was killed by signal \(signal)" }
                  else { "could not be started" }
        let tail = stderr.isEmpty ? "" : ": \(stderr)"
        return "\(arguments.first ?? "?") \(how)\(tail)"
    }
}

/// Runs a command with stdin and stdout on /dev/null, stderr captured, and measures it with
/// `wait4`, so the CPU time is exactly the child's. Any thread; one call runs one child.
enum ChildProcess {
    /// Runs `arguments` (looked up on PATH) and waits for it; with `captureStdout` its
    /// standard output is kept in `stdout` (otherwise it goes to /dev/null).
    static func run(_ arguments: [String], captureStdout: Bool = false) -> ChildResult {
        precondition(!arguments.isEmpty, "a command needs a program name")
        let errorPath = NSTemporaryDirectory() + "tonearm-bench-\(getpid())-\(MonotonicClock.nanoseconds()).stderr"
        let outputPath = String(errorPath.dropLast("stderr".count)) + "stdout"
        defer { unlink(errorPath) }
        defer { if captureStdout { unlink(outputPath) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if captureStdout {
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var result = ChildResult(arguments: arguments, exitStatus: nil, signal: nil, wallSeconds: 0, cpuSeconds: 0, stderr: "")
        var pid: pid_t = 0
        let start = MonotonicClock.nanoseconds()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            result.stderr = String(cString: strerror(spawned))
            return result
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        result.wallSeconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
        result.cpuSeconds = CPUTime.seconds(usage.ru_utime) + CPUTime.seconds(usage.ru_stime)
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        if status & 0x7f == 0 {
            result.exitStatus = (status >> 8) & 0xff
        } else {
            result.signal = status & 0x7f
        }
        result.stderr = readTail(of: errorPath)
        if captureStdout { result.stdout = readTail(of: outputPath) }
        return result
    }

    /// The last few kB of a text file, trimmed.
    private static func readTail(of path: String, limit: Int = 4096) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        let text = String(decoding: data.suffix(limit), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
