extension EventLogError {
    /// A backend's failure as the engine reports it (``StorageFailure/engineError``): damage as
    /// ``Code/integrity``, a lost server as ``Code/unavailable``, a refused write as
    /// ``Code/permissionDenied``, anything else as ``Code/storage``; the backend's error is kept as
    /// ``underlying``. An ``EventLogError`` passes as is.
    package static func storage(_ error: any Error) -> EventLogError {
        if let error = error as? EventLogError { return error }
        if let error = error as? any StorageFailure { return error.engineError }
        return EventLogError(.storage, "storage failure: \(error)", underlying: error)
    }
}
