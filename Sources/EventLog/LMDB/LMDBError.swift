internal import CLMDB
import Foundation

/// A failed LMDB call: the operation and LMDB's own result code and text.
struct LMDBError: Error, CustomStringConvertible {
    let code: Int32
    let operation: String

    var isMapFull: Bool { code == MDB_MAP_FULL }
    var isMapResized: Bool { code == MDB_MAP_RESIZED }
    /// Writing the file failed: no room left on the disk, a quota or file size limit, or an I/O error
    /// (LMDB reports a short write, as a full disk gives, as EIO).
    var isWriteFailure: Bool { [EIO, ENOSPC, EFBIG, EDQUOT].contains(code) }
    /// The file is not an LMDB environment, or its pages are damaged.
    var isCorruption: Bool { [MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_INVALID, MDB_BAD_TXN].contains(code) }

    /// The file has no LMDB meta pages: another program's file, or one damaged at its start.
    var isNotAnLMDBFile: Bool { code == MDB_INVALID }

    var description: String {
        "\(operation) failed: \(String(cString: mdb_strerror(code))) (\(code))"
    }

    /// Turns an LMDB return code into a thrown error; the one place where codes become errors.
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
        if code != MDB_SUCCESS { throw LMDBError(code: code, operation: operation()) }
    }
}
