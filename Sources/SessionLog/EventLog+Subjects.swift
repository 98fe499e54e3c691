import EventLog
import SessionModel

extension EventLog {
    /// The person `userID` names, as this store knows them: the keyed hash of the id (never the id).
    public func subject(_ userID: String) -> SubjectHash {
        SubjectHash(bytes: identifierHash(userID))!  // the hash is always 32 bytes
    }
}
