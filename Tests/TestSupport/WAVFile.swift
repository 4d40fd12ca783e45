import Foundation

/// Minimal WAV reading and writing for tests (PCM 16-bit and IEEE float 32-bit).
package enum WAVFile {
    package struct Contents {
        package var sampleRate: Int
        package var channels: Int
        package var samples: [Float]
        package var frames: Int { samples.count / max(channels, 1) }
    }

    /// Writes `samples` (interleaved) as 16-bit PCM, or 32-bit float when `float` is true.
    package static func write(_ samples: [Float], sampleRate: Int, channels: Int, to path: String, float: Bool = false) throws {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let bytesPerSample = float ? 4 : 2
        let dataBytes = samples.count * bytesPerSample
        d.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + dataBytes)); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(float ? 3 : 1); u16(UInt16(channels))
        u32(UInt32(sampleRate)); u32(UInt32(sampleRate * channels * bytesPerSample))
        u16(UInt16(channels * bytesPerSample)); u16(UInt16(bytesPerSample * 8))
        d.append(contentsOf: Array("data".utf8)); u32(UInt32(dataBytes))
        d.reserveCapacity(d.count + dataBytes)
        for s in samples {
            if float { u32(s.bitPattern) } else {
                let v = Int16(max(-32768, min(32767, (Double(s) * 32767).rounded())))
                u16(UInt16(bitPattern: v))
            }
        }
        try d.write(to: URL(fileURLWithPath: path))
    }

    /// Reads a PCM16/PCM24/PCM32/float32 WAV file.
    package static func read(_ path: String) throws -> Contents {
        let d = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ o: Int) -> UInt32 { UInt32(d[o]) | UInt32(d[o + 1]) << 8 | UInt32(d[o + 2]) << 16 | UInt32(d[o + 3]) << 24 }
        func u16(_ o: Int) -> UInt16 { UInt16(d[o]) | UInt16(d[o + 1]) << 8 }
        struct Bad: Error {}
        guard d.count >= 12, String(decoding: d[0..<4], as: UTF8.self) == "RIFF" else { throw Bad() }
        var o = 12
        var format = 1, channels = 0, rate = 0, bits = 0
        while o + 8 <= d.count {
            let id = String(decoding: d[o..<o + 4], as: UTF8.self)
            var size = Int(u32(o + 4))
            if id == "fmt " {
                format = Int(u16(o + 8)); channels = Int(u16(o + 10)); rate = Int(u32(o + 12)); bits = Int(u16(o + 22))
                if format == 0xFFFE { format = Int(u16(o + 32)) }
            } else if id == "data" {
                if size == 0 || size == 0xFFFF_FFFF || o + 8 + size > d.count { size = d.count - o - 8 }
                let bytes = bits / 8
                let n = size / bytes
                var samples = [Float](repeating: 0, count: n)
                for i in 0..<n {
                    let p = o + 8 + i * bytes
                    switch (format, bits) {
                    case (3, 32): samples[i] = Float(bitPattern: u32(p))
                    case (1, 16): samples[i] = Float(Int16(bitPattern: u16(p))) / 32768
                    case (1, 24): samples[i] = Float(Int32(bitPattern: (u32(p - 1) & 0xFFFF_FF00))) / 2_147_483_648
                    case (1, 32): samples[i] = Float(Int32(bitPattern: u32(p))) / 2_147_483_648
                    default: throw Bad()
                    }
                }
                return Contents(sampleRate: rate, channels: channels, samples: samples)
            }
            o += 8 + size + (size & 1)
        }
        throw Bad()
    }
}
