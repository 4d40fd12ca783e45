import AudioDecoding
import Testing
import TestSupport

@Suite struct SndFileDecoderTests {
    @Test(arguments: ["wav", "aiff", "flac", "ogg"])
    func exactLengthAndFormat(name: String) throws {
        let f = try Fixtures.get()
        let path = ["wav": f.wav, "aiff": f.aiff, "flac": f.flac, "ogg": f.ogg][name]!
        let decoder = try AudioDecoders.open(.file(path))
        #expect(decoder.settings.formatID == name)
        #expect(decoder.settings.sampleRate == 44_100)
        #expect(decoder.settings.numberOfChannels == 2)
        #expect(decoder.settings.channelLayout == "stereo")
        #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
        let samples = try decodeAll(decoder)
        #expect(samples.count == Fixtures.sourceFrames * 2)
        if name == "ogg" {
            #expect(decoder.settings.bitDepth == nil)
        } else {
            #expect(decoder.settings.bitDepth == 16)
        }
        if name == "wav" || name == "aiff" {
            #expect(decoder.settings.bitRate == 44_100 * 2 * 16)
            // Lossless: the decoded samples are the source's.
            let source = try WAVFile.read(f.sourceWAV)
            let maxError = zip(samples, source.samples).map { abs($0 - $1) }.max() ?? 1
            #expect(maxError < 1e-4)
        } else {
            #expect(decoder.settings.bitRate > 10_000 && decoder.settings.bitRate < 1_411_200)
        }
    }

    @Test func bitDepths() throws {
        let f = try Fixtures.get()
        for (bits, args) in [(24, ["-b", "24"]), (8, ["-b", "8"]), (32, ["-b", "32", "-e", "floating-point"])] {
            for ext in ["wav", "aiff"] where !(ext == "aiff" && bits == 32) {
                let path = f.dir + "/depth\(bits).\(ext)"
                try Shell.run(["sox", f.sourceWAV] + args + [path])
                let decoder = try AudioDecoders.open(.file(path))
                #expect(decoder.settings.formatID == ext)
                #expect(decoder.settings.bitDepth == bits, "\(path)")
                #expect(decoder.settings.bitRate == 44_100 * 2 * bits)
                #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
            }
        }
    }

    /// Some taggers put an ID3v2 tag before a FLAC stream.
    @Test func flacAfterID3Tag() throws {
        let f = try Fixtures.get()
        let bytes = BadInputTests.id3Tag(size: 500) + (try f.bytes(f.flacWithPicture))
        let decoder = try AudioDecoders.open(.bytes(bytes))
        #expect(decoder.settings.formatID == "flac")
        #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
        #expect(decoder.metadata.artwork?.bytes == f.png)
        #expect(try decodeAll(decoder) == decodeAll(AudioDecoders.open(.file(f.flac))))
    }

    @Test func flacIsLossless() throws {
        let f = try Fixtures.get()
        let flac = try decodeAll(try AudioDecoders.open(.file(f.flac)))
        let wav = try decodeAll(try AudioDecoders.open(.file(f.wav)))
        #expect(flac == wav)
    }

    @Test func opusDecodesAt48kHz() throws {
        let f = try Fixtures.get()
        let decoder = try AudioDecoders.open(.file(f.opus))
        #expect(decoder.settings.formatID == "opus")
        #expect(decoder.settings.sampleRate == 48_000)
        #expect(decoder.settings.numberOfChannels == 2)
        // 2 s at 48 kHz, pre-skip removed.
        #expect(decoder.frameCount == 96_000)
        let samples = try decodeAll(decoder)
        #expect(samples.count == 96_000 * 2)
    }

    @Test func tags() throws {
        let f = try Fixtures.get()
        let flac = try AudioDecoders.open(.file(f.flac))
        #expect(flac.metadata.title == "Flac Title")
        #expect(flac.metadata.artist == "Flac Artist")
        #expect(flac.metadata.album == "Flac Album")
        let ogg = try AudioDecoders.open(.file(f.ogg))
        #expect(ogg.metadata.title == "Ogg Title")
        let opus = try AudioDecoders.open(.file(f.opus))
        #expect(opus.metadata.title == "Opus Title")
    }

    @Test func flacPicture() throws {
        let f = try Fixtures.get()
        for input in [AudioInput.file(f.flacWithPicture), .bytes(try f.bytes(f.flacWithPicture))] {
            let decoder = try AudioDecoders.open(input)
            #expect(decoder.metadata.artwork == Artwork(mimeType: "image/png", bytes: f.png))
            #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
        }
    }

    @Test(arguments: ["wav", "aiff", "flac", "ogg", "opus"])
    func memoryEqualsFile(name: String) throws {
        let f = try Fixtures.get()
        let path = ["wav": f.wav, "aiff": f.aiff, "flac": f.flac, "ogg": f.ogg, "opus": f.opus][name]!
        let fromFile = try AudioDecoders.open(.file(path))
        let fromMemory = try AudioDecoders.open(.bytes(try f.bytes(path)))
        #expect(fromMemory.settings == fromFile.settings)
        #expect(fromMemory.frameCount == fromFile.frameCount)
        #expect(fromMemory.metadata == fromFile.metadata)
        #expect(try decodeAll(fromMemory, chunk: 999) == decodeAll(fromFile))
    }

    @Test(arguments: [Int64(0), 1, 4095, 4096, 12_345, 44_100, 88_199, 88_200])
    func seekIsSampleExact(frame: Int64) throws {
        let f = try Fixtures.get()
        for input in [AudioInput.file(f.wav), .file(f.flac), .bytes(try f.bytes(f.flac)), .file(f.aiff), .file(f.ogg), .bytes(try f.bytes(f.opus))] {
            let straight = try decodeAll(try AudioDecoders.open(input))
            let decoder = try AudioDecoders.open(input)
            _ = try decode(decoder, frames: 3000)
            try decoder.seek(toFrame: frame)
            let after = try decode(decoder, frames: 2000)
            let start = Int(frame) * 2
            #expect(after == Array(straight[start..<min(straight.count, start + 4000)]), "seek to \(frame)")
        }
    }
}
