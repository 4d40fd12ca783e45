import Foundation

/// The generated MP3s every tool in the run decodes: a few distinct, music-like files
/// (mixed synth tones with slow amplitude swells and tremolo over soft pink noise, never
/// silence, which encoders shortcut), 44.1 kHz stereo, CBR 192 kb/s by `lame`.
///
/// They are cached in a directory (`build/bench` by default) under names that include the
/// length, and regenerated only when missing. N players take the files in turn (cycled),
/// and the peers get exactly the same list. Main thread.
struct BenchInputs: Sendable {
    /// Distinct files this many players cycle through.
    static let distinctFiles = 4
    /// The distinct MP3s, absolute paths.
    let files: [String]
    /// Length of each file in seconds (as generated).
    let seconds: Double

    /// The input of each of `count` players: the distinct files, cycled.
    func list(count: Int) -> [String] {
        (0..<count).map { files[$0 % files.count] }
    }

    /// One chord per file (two voices per channel), so the files differ.
    private static let voices: [(left: [Int], right: [Int], tremolo: Double, swell: Double)] = [
        ([220, 277], [330, 415], 5, 0.30),
        ([196, 247], [294, 370], 3, 0.20),
        ([262, 330], [392, 494], 6, 0.25),
        ([175, 220], [262, 330], 4, 0.35),
    ]

    /// Makes sure every file exists in `directory`, generating the missing ones with sox and lame.
    static func prepare(directory: String, seconds: Double, log: (String) -> Void) throws(BenchError) -> BenchInputs {
        let fm = FileManager.default
        let base = directory.hasPrefix("/") ? directory : fm.currentDirectoryPath + "/" + directory
        do {
            try fm.createDirectory(atPath: base, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create \(base): \(error)")
        }
        let label = seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
        var files: [String] = []
        for k in 0..<distinctFiles {
            let path = "\(base)/tones-\(k + 1)-\(label)-192k.mp3"
            files.append(path)
            if let size = (try? fm.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 { continue }
            log("generating \(path) (sox | lame -b 192)…")
            try generate(variant: k, seconds: seconds, into: path)
        }
        return BenchInputs(files: files, seconds: seconds)
    }

    /// Writes one MP3 through a temporary name, so an interrupted run leaves nothing cached.
    private static func generate(variant k: Int, seconds: Double, into path: String) throws(BenchError) {
        let v = voices[k % voices.count]
        let length = String(format: "%.3f", seconds)
        let tones = "sox -n -r 44100 -c 2 -p synth \(length) sine \(v.left[0]) sine \(v.right[0])"
            + " synth sine mix \(v.left[1]) sine mix \(v.right[1])"
            + " synth sine amod \(v.swell) tremolo \(v.tremolo) 40"
        let noise = "sox -n -r 44100 -c 2 -p synth \(length) pinknoise"
        let temporary = path + ".partial"
        let pipeline = "sox -V1 -m -v 0.7 \(quote("|" + tones)) -v 0.08 \(quote("|" + noise)) -b 16 -t wav -"
            + " | lame --quiet -b 192 --cbr - \(quote(temporary))"
            + " && mv \(quote(temporary)) \(quote(path))"
        let result = ChildProcess.run(["/bin/bash", "-c", "set -o pipefail; " + pipeline])
        guard result.succeeded else {
            unlink(temporary)
            throw BenchError("generating \(path) failed: \(result.failureDescription)")
        }
    }

    /// Single-quotes `text` for bash.
    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Reads every file once so the first measured tool does not pay for the disk.
    func warmPageCache() {
        for file in files { _ = FileManager.default.contents(atPath: file) }
    }
}

/// A benchmark step that could not run, with a message for the report.
struct BenchError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
