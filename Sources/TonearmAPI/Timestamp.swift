import Foundation

/// ISO 8601 UTC timestamps with milliseconds (`2026-11-22T05:30:00.123Z`), as Home Assistant
/// and webhook receivers expect. Any thread.
enum Timestamp {
    static func iso8601(_ date: Date = Date()) -> String {
        let seconds = date.timeIntervalSince1970
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let millis = min(999, Int(((seconds - seconds.rounded(.down)) * 1000).rounded(.down)))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }
}
