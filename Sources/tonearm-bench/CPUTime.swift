import AudioCore
#if canImport(Glibc)
import Glibc
#endif

/// Process CPU time and wall-clock time, read together so a measurement is one subtraction.
/// A plain value; any thread.
struct CPUTime: Sendable {
    /// CLOCK_MONOTONIC, seconds.
    var wall: Double
    /// User + system CPU of every thread of this process (not its children), seconds.
    var cpu: Double

    /// Reads both clocks now.
    static func now() -> CPUTime {
        var usage = rusage()
        getrusage(__rusage_who_t(truncatingIfNeeded: RUSAGE_SELF.rawValue), &usage)
        return CPUTime(wall: Double(MonotonicClock.nanoseconds()) / 1e9,
                       cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }

    /// Wall and CPU seconds elapsed since `start`.
    func since(_ start: CPUTime) -> (wall: Double, cpu: Double) {
        (wall - start.wall, cpu - start.cpu)
    }

    static func seconds(_ t: timeval) -> Double {
        Double(t.tv_sec) + Double(t.tv_usec) / 1e6
    }
}
