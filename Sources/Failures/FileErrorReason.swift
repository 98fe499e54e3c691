import Foundation

/// Why a file could not be read or written, as the system says it ("No such file or directory"):
/// Foundation's own descriptions run to two sentences.
package func fileErrorReason(_ error: any Error) -> String {
    let error = error as NSError
    let posix = error.domain == NSPOSIXErrorDomain ? error : (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
    if let posix, posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
    return error.localizedDescription
}
