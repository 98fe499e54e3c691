internal import CSndFile

/// Samples read from an audio file, in the format asked for.
public struct DecodedAudio: Sendable, Equatable {
    /// Interleaved 16-bit samples.
    public var samples: [Int16]
    /// The samples' format after any conversion.
    public var format: AudioFormat
    /// What the file held, before any conversion.
    public var sourceFormat: AudioFormat

    /// Samples in `format`; `sourceFormat` says what they were converted from (by default, nothing).
    public init(samples: [Int16], format: AudioFormat, sourceFormat: AudioFormat? = nil) {
        self.samples = samples
        self.format = format
        self.sourceFormat = sourceFormat ?? format
    }

    /// Sample frames.
    public var frames: Int { samples.count / format.channels }

    /// "converted from 44100 Hz, 2 channels to 16000 Hz, mono, 16-bit", or nil when nothing was converted.
    public var conversion: String? {
        sourceFormat == format ? nil : "converted from \(sourceFormat.sampleRate) Hz, \(sourceFormat.channels == 1 ? "mono" : "\(sourceFormat.channels) channels") to \(format)"
    }
}

/// Audio files through libsndfile: WAV, FLAC, OGG/Vorbis and the rest it reads; WAV and FLAC written.
public enum AudioFile {
    /// The files audio can be written as, chosen by the file name's extension.
    public enum Container: String, Sendable, CaseIterable {
        case wav, flac

        /// The container a file name asks for, by its extension.
        public init(path: String) throws(AudioError) {
            let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
            guard path.contains("."), let container = Container(rawValue: ext) else {
                throw AudioError(.unsupportedContainer, "\(path): give a file name ending in .wav or .flac", path: path)
            }
            self = container
        }

        var sndfileFormat: Int32 {
            switch self {
            case .wav: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            }
        }
    }

    /// Reads `path` and converts it to `format` (mixing channels down and resampling as needed);
    /// `conversion` on the result says what was done.
    public static func read(_ path: String, as format: AudioFormat = .sessionDefault) throws(AudioError) -> DecodedAudio {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError(.unreadable, "\(path) cannot be read as audio: \(SoundFile.lastError(nil))", path: path)
        }
        let file = SoundFile(handle: handle, info: info)
        guard info.channels > 0, info.samplerate > 0 else { throw AudioError(.malformed, "\(path) declares no channels or no sample rate", path: path) }
        let source = AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels))
        let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        if source == format, subtype == Int32(SF_FORMAT_PCM_16) {
            return DecodedAudio(samples: try file.readAllSamples(source: path), format: format, sourceFormat: source)
        }
        let floats = try file.readAllFloats(source: path)
        let mixed = Resampler.mix(floats, from: source.channels, to: format.channels)
        let resampled = Resampler.resample(mixed, channels: format.channels, from: source.sampleRate, to: format.sampleRate)
        return DecodedAudio(samples: Resampler.quantize(resampled), format: format, sourceFormat: source)
    }

    /// The bytes of a WAV or FLAC file holding 16-bit `samples`, made in memory: for outputs that cannot
    /// seek (a pipe) or must not be replaced (a device).
    public static func encoded(_ samples: [Int16], format: AudioFormat, as container: Container) throws(AudioError) -> [UInt8] {
        let file = MemoryFile()
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channels)
        info.format = container.sndfileFormat
        guard let sound = file.open(Int32(SFM_WRITE), &info) else {
            throw AudioError(.writeFailed, "cannot encode \(container.rawValue.uppercased()) (\(format)): \(SoundFile.lastError(nil))")
        }
        try sound.writeAll(samples, channels: format.channels, destination: "a \(container.rawValue.uppercased()) file")
        sound.close()
        return file.bytes
    }

    /// Writes 16-bit samples as WAV or FLAC (by `path`'s extension), replacing the file.
    public static func write(_ samples: [Int16], format: AudioFormat, to path: String) throws(AudioError) {
        let container = try Container(path: path)
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channels)
        info.format = container.sndfileFormat
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioError(.cannotCreate, "\(path) cannot be created: \(SoundFile.lastError(nil))", path: path)
        }
        let file = SoundFile(handle: handle, info: info)
        try file.writeAll(samples, channels: format.channels, destination: path)
        file.close()
    }
}
