extension DecodedAudio {
    /// The same audio at `sampleRate` (band-limited, deterministic: the resampler `read` uses).
    public func resampled(to sampleRate: Int) -> DecodedAudio {
        guard sampleRate != format.sampleRate else { return self }
        let floats = samples.map { Float($0) / 32768 }
        let converted = Resampler.resample(floats, channels: format.channels, from: format.sampleRate, to: sampleRate)
        return DecodedAudio(samples: Resampler.quantize(converted), format: AudioFormat(sampleRate: sampleRate, channels: format.channels),
                            sourceFormat: sourceFormat)
    }
}
