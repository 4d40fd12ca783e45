import AudioCore

/// Where a sound's bytes come from: a file path or bytes held in memory (an upload).
package enum AudioInput: Sendable {
    case file(String)
    case bytes([UInt8])
}

/// The format facts of a sound (SPEC 2.2 `settings`).
package struct SoundSettings: Sendable, Hashable {
    /// `mp3`, `wav`, `aiff`, `flac`, `ogg` (Vorbis), `opus`.
    package var formatID: String
    package var sampleRate: Int
    package var numberOfChannels: Int
    /// Bits per second; the average for VBR.
    package var bitRate: Int
    /// Bits per sample for PCM formats (WAV, AIFF, FLAC); nil for lossy ones.
    package var bitDepth: Int?
    /// `mono`, `stereo`, or `N channels`.
    package var channelLayout: String

    package init(formatID: String, sampleRate: Int, numberOfChannels: Int, bitRate: Int, bitDepth: Int?, channelLayout: String) {
        self.formatID = formatID
        self.sampleRate = sampleRate
        self.numberOfChannels = numberOfChannels
        self.bitRate = bitRate
        self.bitDepth = bitDepth
        self.channelLayout = channelLayout
    }
}

/// An embedded picture (ID3 APIC, FLAC/Vorbis picture).
package struct Artwork: Sendable, Hashable {
    package var mimeType: String
    package var bytes: [UInt8]

    package init(mimeType: String, bytes: [UInt8]) {
        self.mimeType = mimeType
        self.bytes = bytes
    }
}

/// Tags read from the sound, where it has them.
package struct SoundMetadata: Sendable, Hashable {
    package var title: String?
    package var artist: String?
    package var album: String?
    package var artwork: Artwork?

    package init(title: String? = nil, artist: String? = nil, album: String? = nil, artwork: Artwork? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.artwork = artwork
    }
}

/// Why a sound cannot be opened or decoded. `detail` is a sentence a user can act on.
package struct DecodeError: Error, Sendable, CustomStringConvertible {
    package enum Kind: String, Sendable { case unsupportedFormat, empty, truncated, corrupt, io }
    package var kind: Kind
    package var detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { detail }
}

/// Decodes one sound to interleaved Float32 at its own rate and channel count.
///
/// Thread rules: created on any thread, then used by one thread at a time (a decode
/// worker); never by the render thread.
package protocol AudioDecoder: AnyObject, Sendable {
    var settings: SoundSettings { get }
    /// Exact number of frames in the sound (encoder delay and padding removed for MP3).
    var frameCount: Int64 { get }
    var metadata: SoundMetadata { get }
    /// Decodes up to `frames` frames into `buffer` (`frames × channels` floats) and returns
    /// how many it wrote; 0 only at the end. Throws `DecodeError` on corrupt or truncated data.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int
    /// Moves to `frame` exactly (0 ≤ frame ≤ frameCount); the next `read` starts there.
    func seek(toFrame frame: Int64) throws
}
