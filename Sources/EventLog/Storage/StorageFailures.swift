extension EventLogError {
    /// A backend's failure as the engine reports it: damage as ``Code/integrity``, a lost server as
    /// ``Code/unavailable``, a refused write as ``Code/permissionDenied``, anything else as
    /// ``Code/storage``; the backend's error is kept as ``underlying``. An ``EventLogError`` passes as is.
    static func storage(_ error: any Error) -> EventLogError {
        if let error = error as? EventLogError { return error }
        if let error = error as? LMDBError, error.isCorruption {
            return EventLogError(.integrity, "the store's data file is damaged: \(error)", underlying: error)
        }
        if let error = error as? PostgresError, error.isConnectionLoss {
            return EventLogError(.unavailable, "lost the connection to the PostgreSQL server: \(error)", underlying: error)
        }
        if let error = error as? PostgresError, error.isReadOnlyRefusal {
            return EventLogError(.permissionDenied, "the PostgreSQL server refuses writes (a hot standby serves reads only); nothing was written. "
                                 + "Write through the primary: a multi-host URL with target_session_attrs=read-write finds it: \(error)",
                                 underlying: error)
        }
        if let error = error as? LMDBError, error.isWriteFailure {
            return EventLogError(.storage, "cannot write the store file (is the disk full, or a quota or file size limit reached?); "
                                 + "nothing of this write was stored: \(error)", underlying: error)
        }
        return EventLogError(.storage, "storage failure: \(error)", underlying: error)
    }
}
