import AudioCore
import AudioDecoding
import AudioEngine
import Foundation
import TestSupport

/// An offline engine at 48 kHz stereo plus a folder for generated sounds.
final class EngineFixture {
    let engine: Engine
    let directory: String
    let rate = 48_000
    let channels: Int

    init(channels: Int = 2, periodFrames: Int = 256) throws {
        self.channels = channels
        engine = Engine(offlineFormat: AudioFormat(sampleRate: rate, channels: channels), periodFrames: periodFrames)
        directory = try Shell.temporaryDirectory("tonearm-engine")
    }

    deinit {
        engine.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes `samples` as a WAV file (16-bit unless `float`) and returns its path.
    func wav(_ name: String, _ samples: [Float], rate: Int = 48_000, channels: Int = 1, float: Bool = true) throws -> String {
        let path = "\(directory)/\(name).wav"
        try WAVFile.write(samples, sampleRate: rate, channels: channels, to: path, float: float)
        return path
    }

    /// Encodes `samples` to MP3 with lame (CBR 192 kb/s unless `arguments` say otherwise).
    func mp3(_ name: String, _ samples: [Float], rate: Int, channels: Int = 1, arguments: [String] = ["-b", "192"]) throws -> String {
        let source = try wav(name + "-source", samples, rate: rate, channels: channels, float: false)
        let path = "\(directory)/\(name).mp3"
        try Shell.run(["lame", "--quiet"] + arguments + [source, path])
        return path
    }

    func player(_ path: String, id: String? = nil) throws -> Player {
        try engine.makePlayer(id: id ?? UUID().uuidString, input: .file(path), url: "file://" + path)
    }

    /// A playing player of 4 s of DC at 0.5 panned hard left (left = 0.5 × gain), past its
    /// 5 ms pan ramp: gain is measured sample by sample on its left channel.
    func dcPlayer() throws -> Player {
        let p = try player(try wav("dc", [Float](repeating: 0.5, count: 48_000 * 4)))
        p.pan = -1
        p.play()
        _ = render(frames: 2_048)
        return p
    }

    /// Renders `seconds` of output and applies state changes.
    func render(seconds: Double) -> [Float] {
        render(frames: Int((seconds * Double(rate)).rounded()))
    }

    func render(frames: Int) -> [Float] {
        let out = engine.render(frames: frames)
        engine.poll()
        return out
    }
}
