import EventLog
import Foundation

extension PostgresStorage {
    /// Connects to the store at `url` (creating its tables with `createTables`), turning each way that
    /// can fail into one sentence: an unreachable server, refused credentials, a missing database, a
    /// database that holds no store.
    static func connect(url: String, createTables: Bool, openLock: OpenLock = .shared, durable: Bool = true) throws -> PostgresStorage {
        let shown = StoreLocation.redacted(url)
        let storage: PostgresStorage
        do {
            storage = try PostgresStorage(url: url, createTables: createTables, openLock: openLock, durable: durable)
        } catch let error as PostgresError {
            throw openingError(error, shown: shown)
        } catch is OpenLockBusy {
            throw EventLogError(.storeBusy, "the store at \(shown) is open in another process (or elsewhere in this one); close it and try again",
                                path: shown)
        }
        if !createTables, !storage.hasTable(StoreLayout.meta) {
            throw EventLogError(.storeMissing, "there is no store in the PostgreSQL database \(shown) (no meta table)", path: shown)
        }
        return storage
    }

    private static func openingError(_ error: PostgresError, shown: String) -> EventLogError {
        let message = error.description
        if message.contains("authentication failed") || message.contains("no password supplied")
            || message.contains("permission denied") || message.contains("no pg_hba.conf entry")
            || message.contains("role") && message.contains("does not exist") {
            return EventLogError(.permissionDenied, "the PostgreSQL server refused the credentials for \(shown): \(message)", path: shown)
        }
        if message.contains("database") && message.contains("does not exist") {
            return EventLogError(.storeMissing, "there is no store at \(shown): \(message)", path: shown)
        }
        if message.contains("cannot connect") {
            return EventLogError(.unavailable, "cannot reach the PostgreSQL server of \(shown): \(message)", path: shown)
        }
        return EventLogError(.storeUnusable, "cannot open the store at \(shown): \(message)", path: shown)
    }
}
