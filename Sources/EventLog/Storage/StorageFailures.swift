extension EventLogError {
    /// A backend's failure as the engine reports it (``StorageBackend/engineError(for:)``): damage as
    /// ``Code/integrity``, a lost server as ``Code/unavailable``, a refused write as
    /// ``Code/permissionDenied``, anything else as ``Code/storage``; the backend's error is kept as
    /// ``underlying``. An ``EventLogError`` passes as is.
    package static func storage(_ error: any Error) -> EventLogError {
        if let error = error as? EventLogError { return error }
        for backend in StorageBackends.all {
            if let translated = backend.engineError(for: error) { return translated }
        }
        return EventLogError(.storage, "storage failure: \(error)", underlying: error)
    }
}
