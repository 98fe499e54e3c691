internal import CSndFile

/// An in-memory file for libsndfile's virtual I/O: what it writes lands in `bytes`; what it
/// reads comes from them.
final class MemoryFile {
    var bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Opens this memory as a sound file; the handle keeps this object alive until it closes.
    func open(_ mode: Int32, _ info: inout SF_INFO) -> SoundFile? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { MemoryFile.from($0).length() },
            seek: { offset, whence, data in MemoryFile.from(data).seek(offset, whence) },
            read: { buffer, count, data in MemoryFile.from(data).read(into: buffer!, count: count) },
            write: { buffer, count, data in MemoryFile.from(data).write(buffer!, count: count) },
            tell: { MemoryFile.from($0).tell() }
        )
        // libsndfile copies the table; the opaque pointer must stay valid while the handle is open.
        guard let handle = sf_open_virtual(&io, mode, &info, Unmanaged.passUnretained(self).toOpaque()) else { return nil }
        return SoundFile(handle: handle, info: info, backing: self)
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> MemoryFile {
        Unmanaged<MemoryFile>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private func length() -> sf_count_t { sf_count_t(bytes.count) }
    private func tell() -> sf_count_t { sf_count_t(position) }

    private func seek(_ offset: sf_count_t, _ whence: Int32) -> sf_count_t {
        let base: Int
        switch whence {
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: base = 0
        }
        let target = base + Int(offset)
        guard target >= 0 else { return -1 }
        position = target
        return sf_count_t(position)
    }

    private func read(into buffer: UnsafeMutableRawPointer, count: sf_count_t) -> sf_count_t {
        let available = max(0, min(Int(count), bytes.count - position))
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + position, byteCount: available) }
        position += available
        return sf_count_t(available)
    }

    private func write(_ buffer: UnsafeRawPointer, count: sf_count_t) -> sf_count_t {
        let count = Int(count)
        if position > bytes.count { bytes.append(contentsOf: repeatElement(0, count: position - bytes.count)) }
        let overlap = min(count, bytes.count - position)
        bytes.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: position).copyMemory(from: buffer, byteCount: overlap) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer + overlap, count: count - overlap))
        position += count
        return sf_count_t(count)
    }
}
