/// The shared relay options as a command that carries connections rather than fetching
/// (`proxy`) sees them: some describe a fetch and mean nothing to a tunnel, so its help lists
/// them not and its parser refuses them (exit 2) instead of ignoring them.
extension RelayOptions {
    /// Each relay option that means nothing to a carried connection, with why.
    static let notForCarriedConnections: [String: String] = [
        "--max-time": "a carried connection lasts as long as its client keeps it open",
        "--idle-timeout": "an idle carried connection stays open until its client closes it",
        "--origin-protocol": "clients speak to origins themselves, inside the tunnels",
        "--resolve": "nothing is reached directly, so no address is pinned for it",
        "--ohttp-relay": "Oblivious HTTP carries requests, not connections",
        "--ohttp-keys": "Oblivious HTTP carries requests, not connections",
    ]

    /// The relay options' help without those of `notForCarriedConnections`.
    static var helpForCarriedConnections: String {
        help(maximumTimeDefault: "none", omitting: Set(notForCarriedConnections.keys))
    }

    /// The relay options' help without the items of `options`: an item is its option's line and
    /// the more deeply indented lines that continue it.
    static func help(maximumTimeDefault: String, omitting options: Set<String>) -> String {
        var kept: [Substring] = []
        var skipping = false
        for line in help(maximumTimeDefault: maximumTimeDefault).split(separator: "\n", omittingEmptySubsequences: false) {
            let item = line.drop(while: { $0 == " " })
            if line.count - item.count <= 2, item.hasPrefix("-") {
                skipping = options.contains(String(item.prefix(while: { $0 != " " })))
            } else if line.count - item.count <= 2 {
                skipping = false
            }
            if !skipping { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }
}
