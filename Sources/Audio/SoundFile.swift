internal import CSndFile

/// An open libsndfile handle that closes itself.
final class SoundFile {
    let handle: OpaquePointer
    let info: SF_INFO
    /// What the handle reads from or writes to, when that is memory.
    private let backing: AnyObject?

    init(handle: OpaquePointer, info: SF_INFO, backing: AnyObject? = nil) {
        self.handle = handle
        self.info = info
        self.backing = backing
    }

    deinit { close() }

    private var closed = false

    /// Closes the handle (flushing what a writer buffered); later calls do nothing.
    func close() {
        guard !closed else { return }
        closed = true
        sf_close(handle)
    }

    /// libsndfile's message for the last error on `handle` (or on opening, when nil).
    static func lastError(_ handle: OpaquePointer?) -> String {
        String(cString: sf_strerror(handle))
    }

    /// Reads every frame as interleaved 16-bit samples (libsndfile converts other sample types).
    func readAllSamples(source: String) throws(AudioError) -> [Int16] {
        try readAll(source: source, zero: 0) { sf_readf_short($0, $1, $2) }
    }

    /// Reads every frame as interleaved floats in [-1, 1] (for conversion).
    func readAllFloats(source: String) throws(AudioError) -> [Float] {
        try readAll(source: source, zero: 0) { sf_readf_float($0, $1, $2) }
    }

    /// Reads every frame with `read` (one of libsndfile's `sf_readf_*`), refusing a file that holds
    /// fewer frames than its header declares.
    private func readAll<Sample>(source: String, zero: Sample,
                                 _ read: (OpaquePointer, UnsafeMutablePointer<Sample>, sf_count_t) -> sf_count_t)
        throws(AudioError) -> [Sample] {
        let channels = Int(info.channels)
        let declared = info.frames > 0 && info.frames < Int64(Int32.max) ? Int(info.frames) : nil
        var samples: [Sample] = []
        // A header may declare any count: reserve what it says only up to 16 M samples (a damaged header
        // declaring billions of frames must not allocate them); the frames actually read decide the rest.
        if let declared { samples.reserveCapacity(min(declared * channels, 16 << 20)) }
        var buffer = [Sample](repeating: zero, count: 8192 * channels)
        while true {
            let frames = buffer.withUnsafeMutableBufferPointer { read(handle, $0.baseAddress!, 8192) }
            if frames < 0 { throw AudioError(.malformed, "\(source): \(Self.lastError(handle))", path: source) }
            if frames == 0 { break }
            samples.append(contentsOf: buffer[0..<(Int(frames) * channels)])
        }
        guard sf_error(handle) == SF_ERR_NO_ERROR else { throw AudioError(.malformed, "\(source): \(Self.lastError(handle))", path: source) }
        if let declared, samples.count / channels < declared {
            throw AudioError(.malformed, "\(source) is truncated: it declares \(declared) frames but holds \(samples.count / channels)",
                             path: source)
        }
        return samples
    }

    func writeAll(_ samples: [Int16], channels: Int, destination: String) throws(AudioError) {
        let frames = sf_count_t(samples.count / channels)
        let written = samples.withUnsafeBufferPointer { sf_writef_short(handle, $0.baseAddress, frames) }
        guard written == frames else { throw AudioError(.writeFailed, "\(destination): \(Self.lastError(handle))", path: destination) }
    }
}
