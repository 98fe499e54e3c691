import Foundation

/// What the appends of one transaction have done so far.
struct BatchState {
    var position: UInt64
    var keyID: UInt32
    var now: Int64
    /// The authentication tag of the last record written (``BatchWriter/lastRecordTag``).
    var lastRecordTag: [UInt8]
    var jobs: [SealJob] = []
    /// The streams with queued jobs (and, after a refused group, perhaps some without): only those need `jobs` searched.
    var streamsWithJobs: Set<StreamID> = []
    var createdKeys: [UInt32] = []
    /// Ids that streams de-duplicated in this transaction hold: those looked up, and those appended
    /// since, so that an id is looked up once per transaction and not once per group.
    var knownIDs: [StreamID: Set<UUID>] = [:]
}

extension BatchWriter {
    /// Applies a group of appends atomically: all of them, or (when one is refused) none, leaving
    /// `state` and the pending index as they were before the group.
    func apply(_ parts: [StreamAppend], to state: inout BatchState, in txn: StoreTransaction)
        throws -> Result<[AppendResult], EventLogError> {
        // A checkpoint of counts, not a copy of `state`: copying would make every group copy the
        // batch's jobs so far, quadratic in the batch size.
        let (position, keyID, jobCount, createdKeyCount) = (state.position, state.keyID, state.jobs.count, state.createdKeys.count)
        let pendingBefore = parts.count == 1 ? [parts[0].stream: pending[parts[0].stream]]
            : Dictionary(parts.map { ($0.stream, pending[$0.stream]) }, uniquingKeysWith: { first, _ in first })
        var results: [AppendResult] = []
        for part in parts {
            switch try apply(part, to: &state, in: txn) {
            case .success(let result):
                results.append(result)
            case .failure(let error):
                for id in state.createdKeys.dropFirst(createdKeyCount) {
                    try txn.delete(StoreLayout.keys, [UInt8](bigEndian: id))
                    keys.forget(id)
                }
                for (stream, change) in pendingBefore {
                    pending[stream] = change
                    state.knownIDs[stream] = nil
                }
                state.position = position
                state.keyID = keyID
                state.jobs.removeLast(state.jobs.count - jobCount)
                state.createdKeys.removeLast(state.createdKeys.count - createdKeyCount)
                return .failure(error)
            }
        }
        return .success(results)
    }

    /// The stream's discardable data key: the one `discardable-keys` names, or a new one when there is
    /// none or it was destroyed (events appended after a discard get a fresh key).
    private func discardableKey(of stream: StreamID, state: inout BatchState, in txn: StoreTransaction) throws -> (UInt32, SecureBytes) {
        if let entry = try txn.get(StoreLayout.discardableKeys, stream.uuid.bytes), entry.count == 4,
           let key = try keys.key(entry.loadBigEndian(at: 0), in: txn) {
            return (entry.loadBigEndian(at: 0), key)
        }
        let id = state.keyID
        state.keyID += 1
        let key = try keys.createKey(id, in: txn)
        state.createdKeys.append(id)
        try txn.put(StoreLayout.discardableKeys, stream.uuid.bytes, [UInt8](bigEndian: id))
        return (id, key)
    }

    /// Applies one stream's append: checks it, assigns positions and queues its records for sealing.
    private func apply(_ part: StreamAppend, to state: inout BatchState, in txn: StoreTransaction)
        throws -> Result<AppendResult, EventLogError> {
        var events = part.events
        var duplicates = 0
        if part.deduplicate {
            // Leave out events whose ids the stream holds already (committed, or earlier in this transaction):
            // one event-ids lookup per id, whatever the stream's length.
            var known = state.knownIDs.removeValue(forKey: part.stream)
                ?? (state.streamsWithJobs.contains(part.stream)
                    ? Set(state.jobs.lazy.filter { $0.stream == part.stream.uuid }.map(\.event.id)) : [])
            let unchecked = Set(events.map(\.id)).subtracting(known)
            known.formUnion(try StreamIndex.places(of: unchecked, in: part.stream, in: txn).keys)
            events = events.filter { known.insert($0.id).inserted }
            state.knownIDs[part.stream] = known
            duplicates = part.events.count - events.count
            if events.isEmpty, duplicates > 0 {
                let version = try pending[part.stream]?.state.version ?? StreamState.read(part.stream, in: txn)?.version ?? 0
                return .success(AppendResult(nextExpectedVersion: version, positions: state.position..<state.position,
                                             duplicates: duplicates))
            }
        }
        var change = try pending[part.stream]
            ?? StreamState.read(part.stream, in: txn).map { StreamChange(state: $0, isNew: false) }
        let version = change?.state.version ?? 0
        guard part.expectedVersion.admits(currentVersion: version) else {
            var error = EventLogError(
                .wrongExpectedVersion,
                "append to stream \(part.stream) expected \(part.expectedVersion) but the stream is at version \(version)",
                stream: part.stream)
            error.expectedVersion = part.expectedVersion
            error.actualVersion = version
            return .failure(error)
        }
        guard !events.isEmpty else {
            return .success(AppendResult(nextExpectedVersion: version, positions: state.position..<state.position))
        }
        let count = UInt64(events.count)
        let key: SecureBytes
        if var existing = change {
            guard let found = try keys.key(existing.state.row.keyID, in: txn) else {
                return .failure(EventLogError(
                    .keyDestroyed, "stream \(part.stream) was erased (its data key is destroyed); nothing can be appended to it",
                    stream: part.stream))
            }
            key = found
            existing.append(count, at: state.position)
            change = existing
        } else {
            let id: UInt32
            switch part.keyScope {
            case .audit:
                id = KeyRing.auditKeyID
                guard let audit = try keys.key(id, in: txn) else {
                    throw EventLogError(.storeUnusable, "the store's audit key is missing")
                }
                key = audit
            case .stream:
                id = state.keyID
                state.keyID += 1
                key = try keys.createKey(id, in: txn)
                state.createdKeys.append(id)
            }
            change = .new(StreamRow(createdAtMilliseconds: state.now, keyID: id, firstPosition: state.position), count: count)
        }
        guard let change else { preconditionFailure("every path above sets the change") }
        var discardable: (id: UInt32, key: SecureBytes)?
        if events.contains(where: \.discardable) {
            if version == 0, events[0].discardable {
                return .failure(EventLogError(.invalidArgument, "the first event of stream \(part.stream) cannot be discardable",
                                              stream: part.stream))
            }
            discardable = try discardableKey(of: part.stream, state: &state, in: txn)
        }
        if !part.deduplicate, state.knownIDs[part.stream] != nil {
            for event in events { state.knownIDs[part.stream]!.insert(event.id) }
        }
        for (offset, event) in events.enumerated() {
            let (keyID, sealingKey) = event.discardable ? discardable! : (change.state.row.keyID, key)
            state.jobs.append(SealJob(event: event, stream: part.stream.uuid, streamNumber: version + UInt64(offset),
                                      position: state.position + UInt64(offset), keyID: keyID, key: sealingKey,
                                      recordedAtMilliseconds: state.now))
        }
        state.streamsWithJobs.insert(part.stream)
        pending[part.stream] = change
        let positions = state.position..<(state.position + count)
        state.position += count
        return .success(AppendResult(nextExpectedVersion: change.state.version, positions: positions, duplicates: duplicates))
    }
}
