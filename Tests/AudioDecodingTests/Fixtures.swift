import AudioDecoding
import Foundation
import TestSupport

/// Short sounds generated once per test run (sox, lame, ffmpeg) into a temporary folder.
struct Fixtures: Sendable {
    /// 2 s stereo at 44.1 kHz: 88 200 frames.
    static let sourceFrames = 88_200
    /// The click fixture: 1 s mono at 44.1 kHz with a click at this frame.
    static let clickFrame = 20_000

    let dir: String
    let sourceWAV: String
    let wav: String, aiff: String, flac: String, ogg: String, opus: String
    let cbr: String, vbr: String, mpeg2: String, mpeg25: String, tagged: String, click: String
    let id3v1: String, flacWithPicture: String
    let png: [UInt8]

    /// Shared by every test; generated on first use.
    static let shared: Result<Fixtures, Error> = Result { try Fixtures() }
    static func get() throws -> Fixtures { try shared.get() }

    private init() throws {
        Self.removeStaleFolders()
        let folder = try Shell.temporaryDirectory("tonearm-decoding")
        dir = folder
        let p = { (name: String) -> String in folder + "/" + name }
        let ffmpeg = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]

        // A sine on the left, noise on the right: distinct channels, easy to compare.
        var samples = Signals.sine(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 44_100, channels: 2)
        let noise = Signals.noise(frames: Self.sourceFrames, channels: 1, amplitude: 0.3)
        for i in 0..<Self.sourceFrames { samples[i * 2 + 1] = noise[i] }
        let sourceWAV = p("source.wav")
        self.sourceWAV = sourceWAV
        try WAVFile.write(samples, sampleRate: 44_100, channels: 2, to: sourceWAV)
        wav = sourceWAV
        aiff = p("sound.aiff")
        try Shell.run(["sox", sourceWAV, aiff])
        flac = p("sound.flac")
        try Shell.run(ffmpeg + ["-i", sourceWAV, "-metadata", "title=Flac Title", "-metadata", "artist=Flac Artist",
                                "-metadata", "album=Flac Album", "-c:a", "flac", flac])
        ogg = p("sound.ogg")
        try Shell.run(ffmpeg + ["-i", sourceWAV, "-metadata", "title=Ogg Title", "-c:a", "libvorbis", "-q:a", "3", ogg])
        opus = p("sound.opus")
        try Shell.run(ffmpeg + ["-i", sourceWAV, "-metadata", "title=Opus Title", "-c:a", "libopus", "-b:a", "64k", opus])

        cbr = p("cbr.mp3")
        try Shell.run(["lame", "--quiet", "-b", "128", sourceWAV, cbr])
        vbr = p("vbr.mp3")
        try Shell.run(["lame", "--quiet", "-V2", sourceWAV, vbr])

        let wav22 = p("source22.wav")
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1.5, sampleRate: 22_050, channels: 2),
                          sampleRate: 22_050, channels: 2, to: wav22)
        mpeg2 = p("mpeg2.mp3")
        try Shell.run(["lame", "--quiet", "-b", "64", wav22, mpeg2])
        let wav11 = p("source11.wav")
        try WAVFile.write(Signals.sine(frequency: 440, amplitude: 0.5, seconds: 1.5, sampleRate: 11_025, channels: 1),
                          sampleRate: 11_025, channels: 1, to: wav11)
        mpeg25 = p("mpeg25.mp3")
        try Shell.run(["lame", "--quiet", "-b", "32", wav11, mpeg25])

        let pngPath = p("cover.png")
        try Shell.run(ffmpeg + ["-f", "lavfi", "-i", "color=c=red:s=8x8", "-frames:v", "1", pngPath])
        png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pngPath)))
        tagged = p("tagged.mp3")
        try Shell.run(["lame", "--quiet", "-b", "128", "--tt", "Song Title", "--ta", "Some Artist", "--tl", "An Album",
                       "--ti", pngPath, sourceWAV, tagged])

        id3v1 = p("id3v1.mp3")
        try Shell.run(["lame", "--quiet", "-b", "128", "--id3v1-only", "--tt", "Old Title", "--ta", "Old Artist",
                       "--tl", "Old Album", sourceWAV, id3v1])
        flacWithPicture = p("picture.flac")
        try Shell.run(ffmpeg + ["-i", sourceWAV, "-i", pngPath, "-map", "0:a", "-map", "1:v", "-c:a", "flac", "-c:v", "copy",
                                "-disposition:v", "attached_pic", flacWithPicture])

        let clickWAV = p("click.wav")
        try WAVFile.write(Signals.click(at: Self.clickFrame, frames: 44_100, amplitude: 0.9),
                          sampleRate: 44_100, channels: 1, to: clickWAV)
        click = p("click.mp3")
        try Shell.run(["lame", "--quiet", "-b", "192", clickWAV, click])
    }

    /// Fixture folders of earlier runs (over an hour old; a run takes seconds).
    private static func removeStaleFolders() {
        let fm = FileManager.default
        let root = NSTemporaryDirectory()
        guard let names = try? fm.contentsOfDirectory(atPath: root) else { return }
        for name in names where name.hasPrefix("tonearm-decoding-") {
            let path = root + name
            if let date = (try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
               date.timeIntervalSinceNow < -3600 {
                try? fm.removeItem(atPath: path)
            }
        }
    }

    func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to a new file in the fixture folder and returns its path.
    func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Reads `decoder` to the end in chunks of `chunk` frames.
func decodeAll(_ decoder: any AudioDecoder, chunk: Int = 4096) throws -> [Float] {
    let channels = decoder.settings.numberOfChannels
    var out: [Float] = []
    var buffer = [Float](repeating: 0, count: chunk * channels)
    var guardCount = 0
    while true {
        let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0.baseAddress!, frames: chunk) }
        if n == 0 { break }
        out.append(contentsOf: buffer[0..<n * channels])
        guardCount += 1
        precondition(guardCount < 1_000_000, "decoder never ends")
    }
    return out
}

/// Reads up to `frames` frames.
func decode(_ decoder: any AudioDecoder, frames: Int) throws -> [Float] {
    let channels = decoder.settings.numberOfChannels
    var out: [Float] = []
    var buffer = [Float](repeating: 0, count: 1000 * channels)
    while out.count < frames * channels {
        let want = min(1000, frames - out.count / channels)
        let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0.baseAddress!, frames: want) }
        if n == 0 { break }
        out.append(contentsOf: buffer[0..<n * channels])
    }
    return out
}
