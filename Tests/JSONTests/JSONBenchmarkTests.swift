#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import JSON

/// Opt-in measurements (`JSON_BENCH=1 swift test -c release --filter JSONBenchmarkTests`):
/// serialization speed of the Swift writer against jansson, and a leak soak
/// (RSS before/after 100k parses and jansson dumps). They print JSON lines.
@Suite(.serialized, .enabled(if: getenv("JSON_BENCH") != nil))
struct JSONBenchmarkTests {
    /// Roughly what `GET /api/v1/players/{id}` returns.
    static let player: JSONValue = [
        "id": "kitchen-radio", "url": "file:///srv/music/Björk/Homogenic/02 Jóga.mp3", "state": "playing",
        "duration": 305.4, "currentTime": 12.3456789, "deviceCurrentTime": 81234.56, "volume": 0.8, "pan": -0.1,
        "enableRate": false, "rate": 1.0, "numberOfLoops": 0, "meteringEnabled": true, "playing": true,
        "format": ["sampleRate": 44100, "channels": 2, "codec": "mp3", "bitrate": 320000],
        "channelAssignments": [[0, 1], [1, 0]], "startTime": nil, "lateBy": 0.0012,
        "title": "Jóga", "artist": "Björk", "album": "Homogenic", "hasArtwork": true,
    ]

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    static func rate(_ iterations: Int, _ body: () -> Int) -> Double {
        var sink = 0
        let start = now()
        for _ in 0..<iterations { sink &+= body() }
        let elapsed = now() - start
        precondition(sink != 42)
        return Double(iterations) / elapsed
    }

    @Test func serializationSpeed() throws {
        let players = JSONValue.array(Array(repeating: Self.player, count: 10))
        let bytes = Self.player.serialized()
        let n = 100_000
        let swiftOne = Self.rate(n) { Self.player.serialized().count }
        let janssonOne = Self.rate(n) { Self.player.serializedWithJansson()!.count }
        let swiftTen = Self.rate(n / 10) { players.serialized().count }
        let janssonTen = Self.rate(n / 10) { players.serializedWithJansson()!.count }
        let parse = Self.rate(n) { (try? JSONValue.parse(bytes))?.objectValue?.count ?? 0 }
        print(#"{"bench":"json","bytes":\#(bytes.count),"swiftPerSec":\#(Int(swiftOne)),"janssonPerSec":\#(Int(janssonOne)),"swiftPerSec10":\#(Int(swiftTen)),"janssonPerSec10":\#(Int(janssonTen)),"parsePerSec":\#(Int(parse))}"#)
    }

    static func residentKiB() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return -1 }
        defer { fclose(file) }
        var size = 0, resident = 0
        withUnsafeMutablePointer(to: &size) { sizePointer in
            withUnsafeMutablePointer(to: &resident) { residentPointer in
                _ = withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
            }
        }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    @Test func noLeaks() throws {
        let bytes = Self.player.serialized(.pretty)
        let bad = Array(#"{"a":1,"a":2}"#.utf8)
        func round(_ count: Int) {
            for _ in 0..<count {
                _ = try? JSONValue.parse(bytes)
                _ = try? JSONValue.parse(bad)
                _ = Self.player.serializedWithJansson()
            }
        }
        round(20_000)  // warm up allocator
        let before = Self.residentKiB()
        round(100_000)
        let after = Self.residentKiB()
        print(#"{"bench":"json-soak","iterations":100000,"rssBeforeKiB":\#(before),"rssAfterKiB":\#(after)}"#)
        #expect(after - before < 2048)
    }
}
