import AudioDecoding
import Testing
import TestSupport

@Suite struct MP3DecoderTests {
    @Test(arguments: [
        ("cbr", 44_100, 2, 88_200),
        ("vbr", 44_100, 2, 88_200),
        ("mpeg2", 22_050, 2, 33_075),
        ("mpeg25", 11_025, 1, 16_538),
    ])
    func exactLengthAndFormat(name: String, rate: Int, channels: Int, frames: Int) throws {
        let f = try Fixtures.get()
        let path = ["cbr": f.cbr, "vbr": f.vbr, "mpeg2": f.mpeg2, "mpeg25": f.mpeg25][name]!
        let decoder = try AudioDecoders.open(.file(path))
        #expect(decoder.settings.formatID == "mp3")
        #expect(decoder.settings.sampleRate == rate)
        #expect(decoder.settings.numberOfChannels == channels)
        #expect(decoder.settings.bitDepth == nil)
        #expect(decoder.frameCount == Int64(frames))
        let samples = try decodeAll(decoder)
        #expect(samples.count == frames * channels)
    }

    /// ffmpeg's libmp3lame writes its own Xing/LAME tag: still gapless and exact.
    @Test func ffmpegEncodedIsGapless() throws {
        let f = try Fixtures.get()
        let path = f.dir + "/ffmpeg.mp3"
        try Shell.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", f.sourceWAV, "-c:a", "libmp3lame", "-q:a", "4", path])
        let decoder = try AudioDecoders.open(.file(path))
        #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
        #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
    }

    @Test func bitRates() throws {
        let f = try Fixtures.get()
        let cbr = try AudioDecoders.open(.file(f.cbr))
        #expect(cbr.settings.bitRate == 128_000)
        let vbr = try AudioDecoders.open(.file(f.vbr))
        // lame -V2 on this signal: an average somewhere in the VBR range, not a frame's rate.
        #expect(vbr.settings.bitRate > 32_000 && vbr.settings.bitRate < 320_000)
    }

    @Test func gaplessStartHasNoEncoderDelay() throws {
        let f = try Fixtures.get()
        let decoder = try AudioDecoders.open(.file(f.click))
        #expect(decoder.frameCount == 44_100)
        let samples = try decodeAll(decoder)
        // The decoded click is smeared by the codec: take the frame of the largest magnitude.
        var peakFrame = 0
        for i in samples.indices where abs(samples[i]) > abs(samples[peakFrame]) { peakFrame = i }
        #expect(abs(peakFrame - Fixtures.clickFrame) <= 2, "click at \(peakFrame), expected \(Fixtures.clickFrame)")
    }

    @Test func tagsAndPicture() throws {
        let f = try Fixtures.get()
        let decoder = try AudioDecoders.open(.file(f.tagged))
        #expect(decoder.metadata.title == "Song Title")
        #expect(decoder.metadata.artist == "Some Artist")
        #expect(decoder.metadata.album == "An Album")
        #expect(decoder.metadata.artwork?.mimeType == "image/png")
        #expect(decoder.metadata.artwork?.bytes == f.png)
        #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
    }

    @Test func id3v1Tags() throws {
        let f = try Fixtures.get()
        let decoder = try AudioDecoders.open(.file(f.id3v1))
        #expect(decoder.metadata == SoundMetadata(title: "Old Title", artist: "Old Artist", album: "Old Album"))
        #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
        #expect(decoder.settings.bitRate == 128_000)
    }

    @Test(arguments: ["cbr", "vbr", "tagged"])
    func memoryEqualsFile(name: String) throws {
        let f = try Fixtures.get()
        let path = ["cbr": f.cbr, "vbr": f.vbr, "tagged": f.tagged][name]!
        let fromFile = try AudioDecoders.open(.file(path))
        let fromMemory = try AudioDecoders.open(.bytes(try f.bytes(path)))
        #expect(fromMemory.settings == fromFile.settings)
        #expect(fromMemory.frameCount == fromFile.frameCount)
        #expect(fromMemory.metadata == fromFile.metadata)
        #expect(try decodeAll(fromMemory, chunk: 1000) == decodeAll(fromFile))
    }

    @Test(arguments: [Int64(0), 1, 575, 1152, 12_345, 44_100, 88_199, 88_200])
    func seekIsSampleExact(frame: Int64) throws {
        let f = try Fixtures.get()
        for input in [AudioInput.file(f.vbr), .bytes(try f.bytes(f.cbr))] {
            let straight = try decodeAll(try AudioDecoders.open(input))
            let decoder = try AudioDecoders.open(input)
            _ = try decode(decoder, frames: 3000) // move away first
            try decoder.seek(toFrame: frame)
            let after = try decode(decoder, frames: 2000)
            let start = Int(frame) * 2
            let expected = Array(straight[start..<min(straight.count, start + 4000)])
            #expect(after == expected, "seek to \(frame)")
        }
    }
}
