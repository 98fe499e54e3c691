/// ``EventLog/verify()``'s check of `event-ids` against the records before `meta/indexed-through`, a chunk
/// of records at a time and in constant memory: each record's id must have an entry, pointing at that
/// record or at a later one of its stream with the same id (an id appended again without
/// de-duplication); the entries that point at their record must then be all the entries there are.
struct EventIDCheck {
    private var entriesPointingHome = 0

    mutating func check(_ records: some Collection<ChunkDecoder.Entry>, in txn: StoreTransaction,
                        report: inout VerificationReport) throws {
        let headers = records.compactMap { record in RecordHeader(parsing: record.record).map { (record.position, $0) } }
        if txn.readsAhead {
            try txn.prefetch([(StoreLayout.eventIDs, headers.map { StoreLayout.eventIDKey($0.1.stream, $0.1.eventID) })])
        }
        var key = [UInt8](repeating: 0, count: 32)  // stream ‖ event id, written over for each record
        for (position, header) in headers {
            key.withUnsafeMutableBytes { key in
                withUnsafeBytes(of: header.stream.uuid) { key.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 16) }
                withUnsafeBytes(of: header.eventID.uuid) { (key.baseAddress! + 16).copyMemory(from: $0.baseAddress!, byteCount: 16) }
            }
            guard let (number, place) = try txn.get(StoreLayout.eventIDs, key).flatMap(StreamIndex.eventIDEntry) else {
                report.report(position, "event \(header.eventID) of stream \(StreamID(header.stream)) at position \(position) is missing from event-ids")
                continue
            }
            if place == position, number == header.streamNumber {
                entriesPointingHome += 1
            } else if place <= position {
                report.report(position, "event-ids places event \(header.eventID) of stream \(StreamID(header.stream)) at position \(place), not at \(position) or after")
            }
        }
    }

    func checkCount(in txn: StoreTransaction, report: inout VerificationReport) throws {
        let entries = try txn.count(StoreLayout.eventIDs)
        if entries != entriesPointingHome {
            report.report(nil, "event-ids holds \(entries) entries but only \(entriesPointingHome) name an indexed record with their id")
        }
    }
}
