import Foundation
import RelayFetchTestSupport

/// An strace log of one run of the executable (`strace -f -o`), read for what the process
/// dialled and what it wrote: each socket's kind from its socket() call, where connect() aimed
/// it, any datagram sent to an explicit address, and each file opened for writing.
struct SystemCallTrace {
    /// Throws, saying what to do, unless the built executable and strace are both there.
    static func requireExecutableAndStrace() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw TestServerError(description: "strace is missing: run scripts/setup.sh")
        }
    }

    /// A socket's transport as socket() created it.
    enum Kind: String { case tcp, udp, unix, other }

    /// One connect() or addressed sendto/sendmsg: the socket's kind and `address:port` (or the
    /// Unix socket's path).
    struct Dial: Hashable, CustomStringConvertible {
        let kind: Kind
        let address: String
        var description: String { "\(kind.rawValue) \(address)" }
    }

    /// The calls traced: sockets, dials, and everything that can create, open for writing,
    /// rename, link or remove a file.
    static let traced = "socket,listen,getsockname,connect,sendto,sendmsg,open,openat,creat,rename,renameat,renameat2,link,linkat,symlink,unlink,unlinkat,mkdir,mkdirat,truncate"

    /// Each call as one line: strace's "<unfinished ...>" and "<... resumed>" halves joined.
    let calls: [String]
    private(set) var dials: [Dial] = []
    /// Addresses this process listens on (bind, then listen): its own tunnel listener.
    private(set) var listening: Set<String> = []

    init(_ text: String) {
        var joined: [String] = []
        var pending: [Substring: String] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let pid = line[..<space]
            let call = line[line.index(after: space)...].trimmingCharacters(in: .whitespaces)
            if call.hasSuffix("<unfinished ...>") {
                pending[pid] = String(call.dropLast("<unfinished ...>".count))
            } else if call.hasPrefix("<..."), let end = call.range(of: "resumed>") {
                joined.append((pending.removeValue(forKey: pid) ?? "") + call[end.upperBound...])
            } else {
                joined.append(call)
            }
        }
        calls = joined
        var kinds: [String: Kind] = [:]
        var listeners: Set<String> = []
        for call in joined {
            // A listener binds port 0 and learns its port with getsockname after listen().
            if call.hasPrefix("listen("), call.hasSuffix("= 0") {
                listeners.insert(String(call.dropFirst(7).prefix { $0.isNumber }))
            } else if call.hasPrefix("getsockname("), call.hasSuffix("= 0"), listeners.contains(String(call.dropFirst(12).prefix { $0.isNumber })),
                      let address = Self.address(in: call) {
                listening.insert(address)
            }
            if call.hasPrefix("socket("), let fd = Self.result(of: call) {
                kinds[fd] = call.contains("AF_UNIX") ? .unix
                    : call.contains("SOCK_STREAM") ? .tcp : call.contains("SOCK_DGRAM") ? .udp : .other
            } else if call.hasPrefix("connect(") || ((call.hasPrefix("sendto(") || call.hasPrefix("sendmsg(")) && call.contains("sa_family=")) {
                let fd = String(call.dropFirst(call.hasPrefix("connect(") ? 8 : 7).prefix { $0.isNumber })
                if let address = Self.address(in: call) { dials.append(Dial(kind: kinds[fd] ?? .other, address: address)) }
            }
        }
    }

    /// The value after " = " at the end of a call (a new descriptor), if it succeeded.
    private static func result(of call: String) -> String? {
        guard let range = call.range(of: " = ", options: .backwards) else { return nil }
        let value = call[range.upperBound...].prefix { $0.isNumber }
        return value.isEmpty ? nil : String(value)
    }

    /// "127.0.0.11:4433" for sin_port/sin_addr, the path for sun_path, the raw text otherwise.
    private static func address(in call: String) -> String? {
        func value(after key: String, until end: Character) -> String? {
            guard let range = call.range(of: key) else { return nil }
            return String(call[range.upperBound...].prefix { $0 != end })
        }
        if let port = value(after: "sin_port=htons(", until: ")"), let address = value(after: "sin_addr=inet_addr(\"", until: "\"") {
            return "\(address):\(port)"
        }
        if let path = value(after: "sun_path=", until: "}") { return path }
        return value(after: "{sa_family=", until: "}")
    }

    /// Every dial, except to this process's own tunnel listener (TCP on 127.0.0.1, a port this
    /// process bound and listens on).
    var externalDials: Set<Dial> {
        Set(dials.filter { !($0.kind == .tcp && listening.contains($0.address)) })
    }

    /// Calls that open a file for writing, create, rename, link or remove one.
    var fileWrites: [String] {
        // Under scripts/sanitize.sh thread, ThreadSanitizer's runtime maps its read-only data through
        // a temporary file it unlinks at once (/tmp/tsan.rodata.<pid>): the runtime's, not ours.
        calls.filter { !$0.contains("/tsan.rodata.") }.filter { line in
            (line.hasPrefix("open") && (line.contains("O_WRONLY") || line.contains("O_RDWR") || line.contains("O_CREAT")))
                || ["creat(", "rename", "link(", "linkat(", "symlink", "unlink", "mkdir", "truncate("].contains { line.hasPrefix($0) }
        }
    }

    /// Calls that show a name being resolved: a DNS packet, or the resolver's files being read.
    var resolverActivity: [String] {
        calls.filter { $0.contains("htons(53)") || $0.contains("/etc/hosts") || $0.contains("resolv.conf") || $0.contains("nsswitch.conf") }
    }

    /// Whether `path` was opened (a positive control: the trace does record opens).
    func opened(_ path: String) -> Bool { calls.contains { $0.hasPrefix("open") && $0.contains("\"\(path)\"") } }
}
