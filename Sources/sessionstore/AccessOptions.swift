import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import SessionModel

/// `--actor` and `--purpose` of every command that decrypts session content: what its record in the
/// store's access log says (docs/COMPLIANCE.md, "Access log").
struct AccessOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Who reads, for the store's access log. Default: the operating-system user.", valueName: "name"))
    var actor: String?

    @Option(help: ArgumentHelp("Why, for the store's access log; required when the store's access policy says so.", valueName: "text"))
    var purpose: String?

    var actorName: String { actor ?? Self.operatingSystemUser }

    /// The name of the user running this process, for the audit trail.
    static var operatingSystemUser: String {
        if let name = Console.variable("USER"), !name.isEmpty { return name }
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(geteuid())"
    }

    /// The handle this command reads session content through, for `log`: the store's access policy decides
    /// here, before anything is read. A store this user may only read (an auditor's copy, a hot standby) cannot
    /// take the record: that is said on standard error and the read goes on.
    func open(_ log: EventLog) throws -> ReadAccess {
        let access = try ReadAccess(log: log, actor: actorName, purpose: purpose)
        if access.unrecorded == .readOnlyReplica {
            Console.err("note: the store is read-only here, so this read is not recorded in its access log\n")
        }
        return access
    }
}
