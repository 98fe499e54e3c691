import Audio
import EventLog
import SessionModel

/// FLAC coding of a chunk's PCM (libsndfile): the vocabulary only describes the two forms a chunk's
/// audio takes; turning one into the other lives here, for ingest, which stores chunks as FLAC, and for
/// the readers that decode them (exports, the server, replay).
extension RecordingChunk {
    /// The same chunk with its frame count, stored as FLAC when that is smaller than raw PCM (it
    /// is, for ~100 ms of speech: about 0.6 of it). Throws when the PCM is not whole frames of `format`.
    public func codedLosslessly(as format: AudioFormat) throws(AudioError) -> RecordingChunk {
        if case .flac(let flac) = audio, let frames, pcmSHA256 != nil {
            // Coded already: check what the stream declares instead of decoding it.
            guard let info = FLACChunkCodec.streamInfo(flac), info.format == format, info.frames == frames else {
                throw AudioError(.malformed, "the FLAC audio is not \(frames) frames of \(format), as its recording and frames field say")
            }
            return self
        }
        let pcm = try pcm()
        let frameBytes = 2 * format.channels
        guard pcm.count % frameBytes == 0 else {
            throw AudioError(.malformed, "\(pcm.count) bytes of PCM are not whole frames of \(format.channels) 16-bit channel\(format.channels == 1 ? "" : "s")")
        }
        var coded = self
        coded.frames = UInt64(pcm.count / frameBytes)
        coded.pcmSHA256 = SHA256.hash(pcm)
        let flac = try FLACChunkCodec.encode(Chunking.samples(fromPCM: pcm), format: format)
        coded.audio = flac.count < pcm.count ? .flac(flac) : .pcm(pcm)
        return coded
    }

    /// The chunk's samples as little-endian int16 bytes, decoding FLAC.
    public func pcm() throws(AudioError) -> [UInt8] {
        switch audio {
        case .pcm(let bytes):
            return bytes
        case .flac(let bytes):
            let samples = try FLACChunkCodec.decode(bytes).samples
            return Chunking.pcmBytes(samples, frames: 0..<samples.count, channels: 1)
        }
    }

    /// SHA-256 of the PCM bytes: stored, or computed (decoding FLAC when it must).
    public func pcmDigest() throws(AudioError) -> [UInt8] {
        if let pcmSHA256 { return pcmSHA256 }
        return SHA256.hash(try pcm())
    }
}
