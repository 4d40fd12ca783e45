import AudioDecoding
import Foundation
import Testing
import TestSupport

/// Opens and decodes `input` to the end; returns the `DecodeError` it must end in.
func decodeError(_ input: AudioInput) -> DecodeError? {
    do {
        let decoder = try AudioDecoders.open(input)
        _ = try decodeAll(decoder)
        return nil
    } catch let error as DecodeError {
        return error
    } catch {
        Issue.record("not a DecodeError: \(error)")
        return nil
    }
}

/// Expects a `DecodeError` for `bytes`, both in memory and as a file.
@discardableResult
func expectDecodeError(_ bytes: [UInt8], name: String, _ f: Fixtures, sourceLocation: SourceLocation = #_sourceLocation) throws -> [DecodeError] {
    let path = try f.write(bytes, name: name)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var errors: [DecodeError] = []
    for input in [AudioInput.bytes(bytes), .file(path)] {
        if let error = decodeError(input) {
            #expect(!error.detail.isEmpty, sourceLocation: sourceLocation)
            errors.append(error)
        } else {
            Issue.record("\(name) (\(input)) decoded without an error", sourceLocation: sourceLocation)
        }
    }
    return errors
}

@Suite struct BadInputTests {
    static let formats = ["cbr", "vbr", "mpeg25", "wav", "aiff", "flac", "ogg", "opus"]

    static func path(_ f: Fixtures, _ name: String) -> String {
        ["cbr": f.cbr, "vbr": f.vbr, "mpeg25": f.mpeg25, "wav": f.wav, "aiff": f.aiff, "flac": f.flac,
         "ogg": f.ogg, "opus": f.opus][name]!
    }

    @Test func empty() throws {
        let f = try Fixtures.get()
        let errors = try expectDecodeError([], name: "empty.mp3", f)
        #expect(errors.allSatisfy { $0.kind == .empty })
    }

    @Test func missingFile() throws {
        let error = decodeError(.file("/nonexistent/tonearm/nothing.mp3"))
        #expect(error?.kind == .io)
    }

    @Test func randomBytes() throws {
        let f = try Fixtures.get()
        for seed in UInt64(1)...20 {
            let noise = Signals.noise(frames: 65_536, seed: seed).map { UInt8(truncatingIfNeeded: $0.bitPattern >> 7) }
            let errors = try expectDecodeError(noise, name: "random\(seed).mp3", f)
            #expect(errors.allSatisfy { $0.kind == .unsupportedFormat }, "\(errors)")
        }
        let text = Array("<html><body>not audio</body></html>".utf8)
        let errors = try expectDecodeError(text, name: "page.wav", f)
        #expect(errors.first?.detail.contains("not an audio file") == true)
    }

    @Test(arguments: formats)
    func truncatedInTheMiddle(name: String) throws {
        let f = try Fixtures.get()
        let bytes = try f.bytes(Self.path(f, name))
        for fraction in [0.5, 0.83] {
            let cut = Array(bytes[0..<Int(Double(bytes.count) * fraction)])
            let errors = try expectDecodeError(cut, name: "cut-\(fraction)-\(name)", f)
            #expect(errors.allSatisfy { $0.kind == .truncated }, "\(name): \(errors)")
            if name == "cbr" || name == "vbr" {
                #expect(errors.allSatisfy { $0.detail.contains("of the 2.00 s its header declares") }, "\(errors)")
            }
        }
    }

    /// Without a Xing/Info tag the frame-header walk still finds a frame cut in two.
    @Test func truncatedMP3WithoutInfoTag() throws {
        let f = try Fixtures.get()
        let path = f.dir + "/notag.mp3"
        try Shell.run(["lame", "--quiet", "-t", "-b", "128", f.sourceWAV, path])
        let bytes = try f.bytes(path)
        // Whole: decodes (without a LAME tag there is no gapless trimming).
        #expect(try decodeAll(AudioDecoders.open(.bytes(bytes))).count > Fixtures.sourceFrames * 2)
        let errors = try expectDecodeError(Array(bytes[0..<Int(Double(bytes.count) * 0.37)]), name: "notag-cut.mp3", f)
        #expect(errors.allSatisfy { $0.kind == .truncated }, "\(errors)")
    }

    /// Cut anywhere, from inside the header to the last bytes: always an error, never short success.
    @Test(arguments: formats)
    func truncatedAnywhere(name: String) throws {
        let f = try Fixtures.get()
        let bytes = try f.bytes(Self.path(f, name))
        for fraction in [0.0005, 0.003, 0.01, 0.05, 0.2, 0.41, 0.66, 0.9, 0.99, 0.999] {
            let cut = Array(bytes[0..<max(1, Int(Double(bytes.count) * fraction))])
            guard let error = decodeError(.bytes(cut)) else {
                Issue.record("\(name) cut to \(cut.count) of \(bytes.count) bytes decoded without an error")
                continue
            }
            #expect(!error.detail.isEmpty)
        }
    }

    /// Random bytes overwritten anywhere (headers included): an error or a decode, never a
    /// crash or a hang. (PCM has no redundancy, so damaged WAV samples decode as they are.)
    @Test(arguments: formats)
    func randomDamageNeverCrashes(name: String) throws {
        let f = try Fixtures.get()
        let original = try f.bytes(Self.path(f, name))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(original.count)
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<12 {
            var bytes = original
            for _ in 0..<(1 + next() % 24) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
            do {
                let decoder = try AudioDecoders.open(.bytes(bytes))
                let samples = try decodeAll(decoder)
                #expect(Int64(samples.count / decoder.settings.numberOfChannels) == decoder.frameCount)
            } catch is DecodeError {
                // fine
            }
        }
    }

    @Test(arguments: ["cbr", "vbr", "flac", "ogg", "opus"])
    func corruptInTheMiddle(name: String) throws {
        let f = try Fixtures.get()
        var bytes = try f.bytes(Self.path(f, name))
        let junk = Signals.noise(frames: 4096, seed: 7).map { UInt8(truncatingIfNeeded: $0.bitPattern >> 5) }
        let start = bytes.count / 3
        bytes.replaceSubrange(start..<start + junk.count, with: junk)
        let errors = try expectDecodeError(bytes, name: "corrupt-\(name)", f)
        if name == "cbr" || name == "vbr" {
            #expect(errors.allSatisfy { $0.kind == .corrupt && $0.detail.contains("damaged MPEG audio data") }, "\(errors)")
        }
        if name == "ogg" || name == "opus" {
            #expect(errors.allSatisfy { $0.kind == .corrupt && $0.detail.contains("damaged") }, "\(errors)")
        }
    }

    @Test(arguments: ["wav", "aiff"])
    func corruptHeader(name: String) throws {
        let f = try Fixtures.get()
        var bytes = try f.bytes(Self.path(f, name))
        for i in 12..<40 { bytes[i] = 0xFF }
        try expectDecodeError(bytes, name: "badheader-\(name)", f)
    }

    @Test func headerOnly() throws {
        let f = try Fixtures.get()
        for name in Self.formats {
            let bytes = try f.bytes(Self.path(f, name))
            try expectDecodeError(Array(bytes.prefix(20)), name: "head-\(name)", f)
        }
    }

    /// An ID3v2 tag of `size` bytes (syncsafe), zero-filled after a small TIT2 frame.
    static func id3Tag(size: Int, declaredSize: Int? = nil) -> [UInt8] {
        let declared = declaredSize ?? size
        var tag: [UInt8] = Array("ID3".utf8) + [3, 0, 0]
        tag += [UInt8(declared >> 21 & 0x7F), UInt8(declared >> 14 & 0x7F), UInt8(declared >> 7 & 0x7F), UInt8(declared & 0x7F)]
        let text: [UInt8] = [0] + Array("Big".utf8)
        tag += Array("TIT2".utf8) + [0, 0, 0, UInt8(text.count), 0, 0] + text
        tag += [UInt8](repeating: 0, count: size - (tag.count - 10))
        return tag
    }

    /// An ID3v2.3 tag holding one APIC frame with `pictureBytes` bytes of (fake) PNG data.
    static func id3Picture(pictureBytes: Int) -> [UInt8] {
        var body: [UInt8] = [0] + Array("image/png".utf8) + [0, 3, 0]
        body += [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0xAB, count: pictureBytes - 4)
        var frame: [UInt8] = Array("APIC".utf8)
        frame += [UInt8(body.count >> 24 & 0xFF), UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF), 0, 0]
        frame += body
        let size = frame.count
        return Array("ID3".utf8) + [3, 0, 0, UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)] + frame
    }

    @Test func hugePictureBeforeValidAudio() throws {
        let f = try Fixtures.get()
        let bytes = Self.id3Picture(pictureBytes: 12 << 20) + (try f.bytes(f.cbr))
        let path = try f.write(bytes, name: "huge-apic.mp3")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for input in [AudioInput.file(path), .bytes(bytes)] {
            if let decoder = try? AudioDecoders.open(input) {
                #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
                #expect(decoder.metadata.artwork?.bytes.count == 12 << 20)
                #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
            }
        }
    }

    /// Junk between the ID3 tag and the first frame, or before the first frame, is tolerated.
    @Test func smallGapsBeforeTheFirstFrame() throws {
        let f = try Fixtures.get()
        let tagged = try f.bytes(f.tagged)
        let tagSize = 10 + (Int(tagged[6]) << 21 | Int(tagged[7]) << 14 | Int(tagged[8]) << 7 | Int(tagged[9]))
        let gap = Array(tagged[0..<tagSize]) + [UInt8](repeating: 0, count: 300) + Array(tagged[tagSize...])
        let lead = [UInt8](repeating: 0x20, count: 300) + (try f.bytes(f.cbr))
        for bytes in [gap, lead] {
            let decoder = try AudioDecoders.open(.bytes(bytes))
            #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
            #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
        }
    }

    /// A little junk after the last frame (zero padding, an unknown trailer) still decodes in full.
    @Test func smallTrailingJunkIsTolerated() throws {
        let f = try Fixtures.get()
        let audio = try f.bytes(f.cbr)
        for tail in [[UInt8](repeating: 0, count: 1000), [UInt8](repeating: 0x55, count: 1000)] {
            let decoder = try AudioDecoders.open(.bytes(audio + tail))
            #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
            #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
        }
    }

    @Test func hugeID3TagBeforeValidAudio() throws {
        let f = try Fixtures.get()
        let audio = try f.bytes(f.cbr)
        let bytes = Self.id3Tag(size: 16 << 20) + audio
        let path = try f.write(bytes, name: "huge-id3.mp3")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let started = Date()
        for input in [AudioInput.file(path), .bytes(bytes)] {
            // Decoding is fine; what matters is no crash and no hang.
            if let decoder = try? AudioDecoders.open(input) {
                #expect(decoder.frameCount == Int64(Fixtures.sourceFrames))
                #expect(decoder.metadata.title == "Big")
                #expect(try decodeAll(decoder).count == Fixtures.sourceFrames * 2)
            }
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func id3TagClaimingMoreThanTheFile() throws {
        let f = try Fixtures.get()
        let audio = try f.bytes(f.cbr)
        let bytes = Self.id3Tag(size: 1000, declaredSize: 200 << 20) + audio
        let errors = try expectDecodeError(bytes, name: "lying-id3.mp3", f)
        #expect(errors.allSatisfy { $0.kind == .truncated })
    }

    @Test func id3TagWithoutAudio() throws {
        let f = try Fixtures.get()
        let bytes = Self.id3Tag(size: 1000) + [UInt8](repeating: 0x55, count: 5000)
        try expectDecodeError(bytes, name: "id3-only.mp3", f)
    }
}
